package dev.lore.mongo;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;

import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.ValueComparator;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.bson.ObjectId;

/**
 * Chooses a {@link SecondaryIndex} for a query, MongoDB-style but simple:
 * <ul>
 *   <li>leading index fields compared for equality with a scalar ({@code f: v} or {@code f: {$eq: v}});</li>
 *   <li>then optionally, on the next index field, {@code $in} of scalars or a range
 *       ({@code $gt/$gte/$lt/$lte});</li>
 *   <li>a sort on the next index fields (optionally followed by {@code _id}), all in one direction,
 *       is served by walking the index forwards or backwards, so sort+limit reads only what it returns;
 *       a sort-only plan (no predicate on the index) is used when a limit is given.</li>
 * </ul>
 * Top-level fields only ($and/$or are not analysed). The candidates are always filtered with the
 * full query afterwards, so a plan only has to return a superset of the matches.
 * Queries that an upstream unique index answers exactly (its fields = the query's fields) are left
 * to upstream; {@code _id} equality or {@code $in} beside other conditions is looked up in the
 * {@code _id} index (then filtered). Returns null when no index helps (upstream then scans).
 */
final class QueryPlanner {

    private static final String ID_FIELD = "_id";

    private QueryPlanner() {
    }

    interface Plan {
        Iterable<Object> positions();

        boolean providesOrder();

        /** Every position the plan yields matches the query: a count needs no document. */
        default boolean exact() {
            return false;
        }
    }

    /** An upstream unique index answers the query exactly (its fields = the query's fields). */
    static boolean uniqueIndexHandles(List<Index<Object>> indexes, Document query) {
        Document q = query == null ? new Document() : query;
        for (Index<Object> index : indexes) {
            if (!(index instanceof SecondaryIndex) && index.canHandle(q)) {
                return true;
            }
        }
        return false;
    }

    static Plan plan(List<Index<Object>> indexes, Document query, Document orderBy, int limit) {
        if (query == null) {
            query = new Document();
        }
        if (orderBy != null && orderBy.containsKey("$natural")) {
            return null;
        }
        List<SecondaryIndex> secondary = new ArrayList<>();
        for (Index<Object> index : indexes) {
            if (index instanceof SecondaryIndex) {
                secondary.add((SecondaryIndex) index);
            } else if (index.canHandle(query)) {
                return null; // exact unique-index lookup (e.g. _id, _id $in, full unique compound key)
            }
        }
        Plan byId = idPlan(indexes, query);
        if (byId != null) {
            return byId;
        }
        Candidate best = null;
        for (SecondaryIndex index : secondary) {
            Candidate candidate = analyse(index, query, orderBy, limit);
            if (candidate != null && (best == null || candidate.score > best.score)) {
                best = candidate;
            }
        }
        return best;
    }

    /**
     * {@code _id} compared for equality with a scalar (or {@code $in} of scalars) beside other
     * conditions ({@code {_id: k, folded: {$ne: x}}}): the unique {@code _id} index gives at most
     * one document per value, and the full query filters them. Upstream would scan the collection,
     * since its unique index answers only queries on exactly its own fields.
     */
    private static Plan idPlan(List<Index<Object>> indexes, Document query) {
        if (!query.containsKey(ID_FIELD)) {
            return null;
        }
        Object condition = query.get(ID_FIELD);
        Document lookup;
        if (equalityValue(condition) != null) {
            // the value as given (upstream's index normalises it as it does its keys)
            Object raw = condition instanceof Document ? ((Document) condition).get("$eq") : condition;
            lookup = new Document(ID_FIELD, raw);
        } else if (condition instanceof Document && ((Document) condition).size() == 1
            && inValues(((Document) condition).get("$in")) != null) {
            lookup = new Document(ID_FIELD, condition);
        } else {
            return null;
        }
        for (Index<Object> index : indexes) {
            if (!(index instanceof SecondaryIndex) && index.canHandle(lookup)) {
                Iterable<Object> positions = index.getPositions(lookup);
                return new Plan() {
                    @Override
                    public Iterable<Object> positions() {
                        return positions;
                    }

                    @Override
                    public boolean providesOrder() {
                        return false;
                    }
                };
            }
        }
        return null;
    }

    private static final class Candidate implements Plan {
        SecondaryIndex index;
        List<Object> equalities = new ArrayList<>();
        List<Object> inValues;           // sorted, distinct
        Object lower;                    // range on the next field
        Object upper;
        boolean range;
        boolean order;
        boolean reverse;
        int score;
        /** The query is exactly equalities on the index's leading fields (and the index is not multikey). */
        boolean exact;

        @Override
        public boolean providesOrder() {
            return order;
        }

        @Override
        public boolean exact() {
            return exact;
        }

        @Override
        public Iterable<Object> positions() {
            List<IndexEntryKey[]> ranges = new ArrayList<>();
            Object[] eq = equalities.toArray();
            if (inValues != null) {
                for (Object value : inValues) {
                    Object[] prefix = append(eq, value);
                    ranges.add(new IndexEntryKey[] {IndexEntryKey.lowerBound(prefix), IndexEntryKey.upperBound(prefix)});
                }
            } else if (range) {
                IndexEntryKey low = lower != null ? IndexEntryKey.lowerBound(append(eq, lower)) : IndexEntryKey.lowerBound(eq);
                IndexEntryKey high = upper != null ? IndexEntryKey.upperBound(append(eq, upper)) : IndexEntryKey.upperBound(eq);
                ranges.add(new IndexEntryKey[] {low, high});
            } else {
                ranges.add(new IndexEntryKey[] {IndexEntryKey.lowerBound(eq), IndexEntryKey.upperBound(eq)});
            }
            if (reverse) {
                Collections.reverse(ranges);
            }
            return () -> {
                Iterator<Object> all = concat(ranges);
                return index.isMultikey() ? SecondaryIndex.distinct(all) : all;
            };
        }

        private Iterator<Object> concat(List<IndexEntryKey[]> ranges) {
            Iterator<IndexEntryKey[]> rangeIterator = ranges.iterator();
            return new Iterator<>() {
                private Iterator<Object> current = Collections.emptyIterator();

                @Override
                public boolean hasNext() {
                    while (!current.hasNext() && rangeIterator.hasNext()) {
                        IndexEntryKey[] r = rangeIterator.next();
                        current = index.positions(r[0], r[1], reverse);
                    }
                    return current.hasNext();
                }

                @Override
                public Object next() {
                    hasNext();
                    return current.next();
                }
            };
        }
    }

    private static Object[] append(Object[] prefix, Object value) {
        Object[] result = new Object[prefix.length + 1];
        System.arraycopy(prefix, 0, result, 0, prefix.length);
        result[prefix.length] = value;
        return result;
    }

    private static Candidate analyse(SecondaryIndex index, Document query, Document orderBy, int limit) {
        List<IndexKey> keys = index.getKeys();
        Candidate c = new Candidate();
        c.index = index;
        int i = 0;
        for (; i < keys.size(); i++) {
            String field = keys.get(i).getKey();
            if (!query.containsKey(field)) {
                break;
            }
            Object condition = query.get(field);
            Object equal = equalityValue(condition);
            if (equal != null) {
                c.equalities.add(equal);
                continue;
            }
            if (condition instanceof Document) {
                Document operators = (Document) condition;
                List<Object> in = inValues(operators.get("$in"));
                if (in != null) {
                    c.inValues = in;
                    break;
                }
                Object lower = firstScalar(operators, "$gt", "$gte");
                Object upper = firstScalar(operators, "$lt", "$lte");
                if (lower != null || upper != null) {
                    c.range = true;
                    c.lower = lower;
                    // multikey: {$gt: a, $lt: b} may be satisfied by two different array elements,
                    // so only one bound can narrow the scan
                    c.upper = (lower != null && index.isMultikey()) ? null : upper;
                    break;
                }
            }
            break;
        }
        int equalities = c.equalities.size();
        boolean narrowing = c.inValues != null || c.range;

        // can the index order serve the sort?
        if (orderBy != null && !orderBy.isEmpty() && c.inValues == null && !index.isMultikey()) {
            int next = equalities;
            Integer direction = null;
            boolean ok = true;
            int n = 0;
            for (Map.Entry<String, Object> sort : orderBy.entrySet()) {
                n++;
                if (!(sort.getValue() instanceof Number)) {
                    ok = false;
                    break;
                }
                int d = ((Number) sort.getValue()).intValue() < 0 ? -1 : 1;
                if (direction == null) {
                    direction = d;
                } else if (direction != d) {
                    ok = false;
                    break;
                }
                if (next < keys.size() && keys.get(next).getKey().equals(sort.getKey())) {
                    next++;
                } else if (sort.getKey().equals("_id") && next == keys.size() && n == orderBy.size()) {
                    // entries with equal key values are ordered by _id
                } else {
                    ok = false;
                    break;
                }
            }
            if (ok && direction != null && (!c.range || next > equalities)) {
                c.order = true;
                c.reverse = direction < 0;
            }
        }

        if (equalities == 0 && !narrowing) {
            // sort-only plan: worth it only when a limit stops the walk early; a sparse index lacks documents
            if (!c.order || limit <= 0 || index.sparse()) {
                return null;
            }
        }
        c.score = equalities * 10 + (narrowing ? 5 : 0) + (c.order ? 3 : 0);
        c.exact = !narrowing && !index.isMultikey() && equalities > 0 && equalities == query.size();
        return c;
    }

    /** A scalar the index can look up (normalized like the index keys), or null. */
    private static Object scalar(Object value) {
        if (value instanceof Number) {
            if (value instanceof Long && ((Long) value).longValue() != (long) ((Long) value).doubleValue()) {
                return value;
            }
            double d = ((Number) value).doubleValue();
            if (Double.isNaN(d)) {
                return null;
            }
            return Double.valueOf(d == -0.0 ? 0.0 : d);
        }
        if (value instanceof String || value instanceof Boolean || value instanceof ObjectId
            || value instanceof Instant || value instanceof UUID) {
            return value;
        }
        return null;
    }

    private static Object equalityValue(Object condition) {
        if (condition instanceof Document) {
            Document operators = (Document) condition;
            if (operators.size() == 1 && operators.containsKey("$eq")) {
                return scalar(operators.get("$eq"));
            }
            return null;
        }
        return scalar(condition);
    }

    private static List<Object> inValues(Object in) {
        if (!(in instanceof Collection)) {
            return null;
        }
        TreeSet<Object> values = new TreeSet<>(ValueComparator.asc());
        for (Object value : (Collection<?>) in) {
            Object s = scalar(value);
            if (s == null) {
                return null;
            }
            values.add(s);
        }
        return new ArrayList<>(values);
    }

    private static Object firstScalar(Document operators, String a, String b) {
        Object value = operators.containsKey(a) ? operators.get(a) : operators.get(b);
        return value == null ? null : scalar(value);
    }
}
