package dev.lore.mongo;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

import org.h2.mvstore.MVMap;

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.QueryResult;
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

    private final MVMap<Object, Document> dataMap;

    LoreCollection(MongoDatabase database, String collectionName, CollectionOptions options,
                   MVMap<Object, Document> dataMap, MVMap<String, Object> metaMap, CursorRegistry cursorRegistry) {
        super(database, collectionName, options, dataMap, metaMap, cursorRegistry);
        this.dataMap = dataMap;
    }

    @Override
    protected QueryResult queryDocuments(Document query, Document orderBy, int numberToSkip, int limit, int batchSize,
                                         Document fieldSelector) {
        QueryPlanner.Plan plan = QueryPlanner.plan(getIndexes(), query, orderBy, limit);
        if (plan != null) {
            Stream<Document> documents = StreamSupport.stream(plan.positions().spliterator(), false)
                .map(this::getDocument)
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

    private QueryResult topK(Document query, Document orderBy, int numberToSkip, int limit, int batchSize,
                             Document fieldSelector, int k) {
        Document filter = query == null ? new Document() : query;
        Comparator<Document> comparator = deriveComparator(orderBy);
        PriorityQueue<Document> heap = new PriorityQueue<>(k + 1, comparator.reversed());
        for (Document document : dataMap.values()) {
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
