package dev.lore.mongo;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

import org.h2.mvstore.MVMap;

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.DocumentWithPosition;
import de.bwaldvogel.mongo.backend.Missing;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.backend.ValueComparator;
import de.bwaldvogel.mongo.backend.h2.H2Collection;
import de.bwaldvogel.mongo.bson.Document;

/**
 * H2Collection with index-aware query planning ({@link QueryPlanner}): equality prefixes, $in and
 * ranges on {@link SecondaryIndex}es, and sorts served in index order (so sort+limit stops early).
 * Queries no secondary index helps fall back to upstream: a unique index whose keys exactly equal
 * the query's fields, else a full scan; a full scan with sort+limit keeps only the top
 * skip+limit documents (bounded heap) instead of sorting every match.
 * The planned path applies the full query filter to each candidate, so an index only narrows.
 */
final class LoreCollection extends H2Collection {

    /** Largest skip+limit served with a bounded heap on the scan path. */
    private static final int TOP_K_MAX = 10_000;

    private final MVMap<Object, StoredDocument> dataMap;

    /**
     * The data map holds {@link StoredDocument}s, not the Documents upstream's H2Collection expects:
     * every H2Collection method that reads or writes the map's values is overridden below, so the
     * map handed to it is only used for size() and isEmpty().
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    LoreCollection(MongoDatabase database, String collectionName, CollectionOptions options,
                   MVMap<Object, StoredDocument> dataMap, MVMap<String, Object> metaMap, CursorRegistry cursorRegistry) {
        super(database, collectionName, options, (MVMap) dataMap, metaMap, cursorRegistry);
        this.dataMap = dataMap;
    }

    // --- the data map: StoredDocuments ----------------------------------------------------------

    /**
     * Data size is kept here, from the BSON each StoredDocument already has; upstream would encode
     * every inserted, updated and removed document once more only to measure it.
     */
    @Override
    protected boolean tracksDataSize() {
        return false;
    }

    @Override
    protected Object addDocumentInternal(Document document) {
        Object key = getIdField() != null ? Utils.getSubdocumentValue(document, getIdField()) : UUID.randomUUID();
        StoredDocument stored = StoredDocument.of(document);
        if (dataMap.putIfAbsent(Missing.ofNullable(key), stored) != null) {
            throw new IllegalStateException("Document with key '" + key + "' already existed in " + this);
        }
        updateDataSize(stored.size());
        return key;
    }

    @Override
    public int count() {
        return dataMap.size();
    }

    @Override
    public boolean isEmpty() {
        return dataMap.isEmpty();
    }

    @Override
    protected Document getDocument(Object position) {
        StoredDocument stored = dataMap.get(position);
        return stored == null ? null : stored.document();
    }

    /**
     * Upstream's path for queries a unique index answers (recall's {@code _id $in} loads): the same,
     * but decoding only the fields the query needs when it has a plain inclusion projection.
     */
    @Override
    protected QueryResult matchDocuments(Document query, Iterable<Object> positions, Document orderBy, int numberToSkip, int limit,
                                         int batchSize, Document fieldSelector) {
        FieldTree needed = fieldsNeeded(query, orderBy, fieldSelector);
        if (needed == null) {
            return super.matchDocuments(query, positions, orderBy, numberToSkip, limit, batchSize, fieldSelector);
        }
        Stream<Document> documents = StreamSupport.stream(positions.spliterator(), false).map(position -> getFields(position, needed));
        return matchDocumentsFromStream(documents, query, orderBy, numberToSkip, limit, batchSize, fieldSelector);
    }

    /** At least the fields {@code fields} names of the document at {@code position}. */
    private Document getFields(Object position, FieldTree fields) {
        StoredDocument stored = dataMap.get(position);
        return stored == null ? null : stored.fields(fields);
    }

    /**
     * The fields a query answered with an inclusion projection of plain paths reads: the projected
     * paths (an embedded document on the way only in part), the id, and whole the top-level fields
     * the filter names (inside $and, $or and $nor too) and those it sorts by. Null when every field
     * must be decoded: no such projection, or a filter operator that may read any field ($where,
     * $expr, $text, ...). Recall loads its hits this way; their unprojected fields (slots,
     * extraction) were most of the server's decoding. The forgetting view reads a few fields inside
     * each node's slots, not the extraction beside them.
     */
    private FieldTree fieldsNeeded(Document query, Document orderBy, Document fieldSelector) {
        if (PathProjection.of(fieldSelector, getIdField()) == null) {
            return null;
        }
        FieldTree fields = new FieldTree();
        for (String key : fieldSelector.keySet()) {
            fields.addPath(key);
        }
        if (getIdField() != null) {
            fields.addWhole(getIdField());
        }
        if (orderBy != null) {
            for (String key : orderBy.keySet()) {
                if (key.startsWith("$")) {
                    return null;
                }
                fields.addWhole(firstSegment(key));
            }
        }
        return query == null || addFilterFields(query, fields) ? fields : null;
    }

    private static boolean addFilterFields(Document filter, FieldTree fields) {
        for (Map.Entry<String, Object> e : filter.entrySet()) {
            String key = e.getKey();
            if (!key.startsWith("$")) {
                fields.addWhole(firstSegment(key));
                continue;
            }
            if (!(key.equals("$and") || key.equals("$or") || key.equals("$nor")) || !(e.getValue() instanceof List)) {
                return false;
            }
            for (Object clause : (List<?>) e.getValue()) {
                if (!(clause instanceof Document) || !addFilterFields((Document) clause, fields)) {
                    return false;
                }
            }
        }
        return true;
    }

    private static String firstSegment(String path) {
        int dot = path.indexOf('.');
        return dot < 0 ? path : path.substring(0, dot);
    }

    @Override
    protected void removeDocument(Object position) {
        StoredDocument removed = dataMap.remove(position);
        if (removed == null) {
            throw new NoSuchElementException("No document with key " + position);
        }
        updateDataSize(-removed.size());
    }

    @Override
    protected Stream<DocumentWithPosition<Object>> streamAllDocumentsWithPosition() {
        return dataMap.entrySet().stream()
            .map(entry -> new DocumentWithPosition<>(entry.getValue().document(), entry.getKey()));
    }

    private Stream<Document> streamAllDocuments() {
        return dataMap.values().stream().map(StoredDocument::document);
    }

    @Override
    protected QueryResult matchDocuments(Document query, Document orderBy, int numberToSkip, int limit, int batchSize,
                                         Document fieldSelector) {
        Stream<Document> documents;
        if (isNaturalDescending(orderBy)) {
            documents = streamAllDocumentsWithPosition()
                .sorted((a, b) -> ValueComparator.desc().compare(a.getPosition(), b.getPosition()))
                .map(DocumentWithPosition::getDocument);
        } else {
            documents = streamAllDocuments();
        }
        return matchDocumentsFromStream(documents, query, orderBy, numberToSkip, limit, batchSize, fieldSelector);
    }

    /** Upstream updates `newDocument` in place, then stores it here: encoded again, as a new value. */
    @Override
    protected void handleUpdate(Object position, Document oldDocument, Document newDocument) {
        StoredDocument stored = StoredDocument.of(newDocument);
        StoredDocument previous = dataMap.put(Missing.ofNullable(position), stored);
        updateDataSize(stored.size() - (previous == null ? 0 : previous.size()));
    }

    // --- queries --------------------------------------------------------------------------------

    /**
     * A count of a query that is exactly equalities on an index's leading fields (learning counts a
     * scope's session events: {tenant_id, scope, kind}) counts the index entries of that prefix; it
     * reads no document. Upstream loaded every matching document to test it: at a million nodes
     * such a count read ~900 000 documents from the file for minutes, on a network thread, long
     * enough for the driver's monitor on that thread to give up and fail every request in flight.
     * Anything else is counted as before (the planner narrows, the documents are tested).
     */
    @Override
    public int count(Document query, int skip, int limit) {
        QueryPlanner.Plan plan = QueryPlanner.plan(getIndexes(), query, null, 0);
        if (plan == null || !plan.exact()) {
            return super.count(query, skip, limit);
        }
        long n = 0;
        for (Object ignored : plan.positions()) {
            n++;
        }
        n = Math.max(0, n - Math.max(skip, 0));
        if (limit > 0) {
            n = Math.min(n, limit);
        }
        return (int) Math.min(Integer.MAX_VALUE, n);
    }

    @Override
    protected QueryResult queryDocuments(Document query, Document orderBy, int numberToSkip, int limit, int batchSize,
                                         Document fieldSelector) {
        QueryPlanner.Plan plan = QueryPlanner.plan(getIndexes(), query, orderBy, limit);
        if (plan != null) {
            FieldTree needed = fieldsNeeded(query, orderBy, fieldSelector);
            Function<Object, Document> load = needed == null ? this::getDocument : position -> getFields(position, needed);
            Stream<Document> documents = StreamSupport.stream(plan.positions().spliterator(), false)
                .map(load)
                .filter(Objects::nonNull);
            Comparator<Document> comparator = plan.providesOrder() ? null : deriveComparator(orderBy);
            return matchDocumentsFromStream(query, documents, numberToSkip, limit, batchSize, comparator, fieldSelector);
        }
        boolean sorted = orderBy != null && !orderBy.isEmpty() && !orderBy.containsKey("$natural");
        long k = (long) Math.max(numberToSkip, 0) + limit;
        if (sorted && limit > 0 && k <= TOP_K_MAX && !QueryPlanner.uniqueIndexHandles(getIndexes(), query)) {
            return topK(query, orderBy, numberToSkip, limit, batchSize, fieldSelector, (int) k);
        }
        return super.queryDocuments(query, orderBy, numberToSkip, limit, batchSize, fieldSelector);
    }

    /**
     * Upstream's filter, sort, skip and limit; projections of plain paths are applied by
     * {@link PathProjection} (upstream's Projection re-splits every path of every document). When a
     * path meets an array, or the projection is of another kind, upstream projects.
     */
    @Override
    protected QueryResult matchDocumentsFromStream(Document query, Stream<Document> documents, int numberToSkip, int limit,
                                                   int batchSize, Comparator<Document> comparator, Document fieldSelector) {
        PathProjection projection = PathProjection.of(fieldSelector, getIdField());
        if (projection == null) {
            return super.matchDocumentsFromStream(query, documents, numberToSkip, limit, batchSize, comparator, fieldSelector);
        }
        Stream<Document> matched = documents.filter(document -> documentMatchesQuery(document, query));
        if (comparator != null) {
            matched = matched.sorted(comparator);
        }
        if (numberToSkip > 0) {
            matched = matched.skip(numberToSkip);
        }
        if (limit > 0) {
            matched = matched.limit(limit);
        }
        List<Document> selected = matched.collect(Collectors.toList());
        List<Document> projected = new ArrayList<>(selected.size());
        for (Document document : selected) {
            Document p = projection.project(document);
            if (p == null) {
                // already filtered and ordered: upstream only projects
                return super.matchDocumentsFromStream(new Document(), selected.stream(), 0, 0, batchSize, null, fieldSelector);
            }
            projected.add(p);
        }
        return createQueryResult(projected, batchSize);
    }

    private QueryResult topK(Document query, Document orderBy, int numberToSkip, int limit, int batchSize,
                             Document fieldSelector, int k) {
        Document filter = query == null ? new Document() : query;
        Comparator<Document> comparator = deriveComparator(orderBy);
        PriorityQueue<Document> heap = new PriorityQueue<>(k + 1, comparator.reversed());
        for (StoredDocument stored : dataMap.values()) {
            Document document = stored.document();
            if (documentMatchesQuery(document, filter)) {
                heap.add(document);
                if (heap.size() > k) {
                    heap.poll();
                }
            }
        }
        List<Document> top = new ArrayList<>(heap);
        top.sort(comparator);
        // already filtered and ordered: skip, limit and project only
        return matchDocumentsFromStream(new Document(), top.stream(), numberToSkip, limit, batchSize, null, fieldSelector);
    }
}
