package dev.lore.mongo;

import java.util.Arrays;

/**
 * Key of a {@link SecondaryIndex} entry: the normalized index key values, then the document's
 * position (its _id), ordered with MongoDB's BSON comparison order (ValueComparator).
 * A "bound" key (bound = -1 or +1) carries only a prefix of the values and sorts before / after
 * every entry sharing that prefix; bounds are never stored, only used to position cursors.
 * Stored as BSON by {@link StoreTypes.IndexEntryKeyType}.
 */
final class IndexEntryKey implements Comparable<IndexEntryKey> {

    final Object[] values;
    final Object position;
    final byte bound;

    IndexEntryKey(Object[] values, Object position) {
        this.values = values;
        this.position = position;
        this.bound = 0;
    }

    private IndexEntryKey(Object[] prefix, int bound) {
        this.values = prefix;
        this.position = null;
        this.bound = (byte) bound;
    }

    static IndexEntryKey lowerBound(Object[] prefix) {
        return new IndexEntryKey(prefix, -1);
    }

    static IndexEntryKey upperBound(Object[] prefix) {
        return new IndexEntryKey(prefix, 1);
    }

    @Override
    public int compareTo(IndexEntryKey other) {
        int n = Math.min(values.length, other.values.length);
        for (int i = 0; i < n; i++) {
            int c = StoreTypes.compareValues(values[i], other.values[i]);
            if (c != 0) {
                return c;
            }
        }
        boolean thisIsPrefixBound = bound != 0 && values.length == n;
        boolean otherIsPrefixBound = other.bound != 0 && other.values.length == n;
        if (thisIsPrefixBound && otherIsPrefixBound && values.length == other.values.length) {
            return Integer.compare(bound, other.bound);
        }
        if (thisIsPrefixBound && (other.values.length > n || other.bound == 0)) {
            return bound;
        }
        if (otherIsPrefixBound && (values.length > n || bound == 0)) {
            return -other.bound;
        }
        if (values.length != other.values.length) {
            // entries of one index all have the same length; not reached in practice
            return Integer.compare(values.length, other.values.length);
        }
        return StoreTypes.compareValues(position, other.position);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof IndexEntryKey)) {
            return false;
        }
        IndexEntryKey other = (IndexEntryKey) o;
        return bound == other.bound && compareTo(other) == 0;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(values);
    }

    @Override
    public String toString() {
        return "IndexEntryKey" + Arrays.toString(values) + "@" + position + (bound == 0 ? "" : bound < 0 ? "-" : "+");
    }
}
