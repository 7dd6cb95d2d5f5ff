package dev.lore.mongo;

import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;

import org.h2.mvstore.Cursor;
import org.h2.mvstore.MVMap;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.KeyValue;
import de.bwaldvogel.mongo.backend.Missing;
import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.KeyConstraintError;

/**
 * A non-unique index persisted in its own MVMap: one entry (key values..., _id) per document
 * (one per array element for array fields: "multikey"). Ordered, so it serves equality prefixes,
 * $in, ranges and sorts. Lives in the same MVStore as the documents, so it is committed atomically
 * with them. Not used by upstream's own lookup path (canHandle is false); {@link QueryPlanner} uses it.
 */
final class SecondaryIndex extends Index<Object> {

    private static final String ID_FIELD = "_id";

    private final MVMap<IndexEntryKey, Boolean> map;
    private final MVMap<String, Object> metaMap;
    private final String multikeyMetaKey;
    private volatile boolean multikey;

    SecondaryIndex(MVMap<IndexEntryKey, Boolean> map, MVMap<String, Object> metaMap, String name, List<IndexKey> keys,
                   boolean sparse) {
        super(name, keys, sparse);
        this.map = map;
        this.metaMap = metaMap;
        this.multikeyMetaKey = "lore.multikey." + name;
        this.multikey = Boolean.TRUE.equals(metaMap.get(multikeyMetaKey));
    }

    boolean isMultikey() {
        return multikey;
    }

    boolean sparse() {
        return isSparse();
    }

    private boolean skipsDocument(Document document) {
        if (!isSparse()) {
            return false;
        }
        for (String key : keys()) {
            if (Missing.isNeitherNullNorMissing(Utils.getSubdocumentValue(document, key))) {
                return false;
            }
        }
        return true;
    }

    private static Object positionOf(Document document) {
        return Missing.ofNullable(document.get(ID_FIELD));
    }

    private static Object[] toArray(KeyValue keyValue) {
        Object[] values = new Object[keyValue.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = keyValue.get(i);
        }
        return values;
    }

    private void noteMultikey(Document document) {
        if (multikey) {
            return;
        }
        for (String key : keys()) {
            if (Utils.getSubdocumentValueCollectionAware(document, key) instanceof Collection) {
                multikey = true;
                metaMap.put(multikeyMetaKey, Boolean.TRUE);
                return;
            }
        }
    }

    @Override
    public Object getPosition(Document document) {
        return null;
    }

    @Override
    public void checkAdd(Document document, MongoCollection<Object> collection) {
        // non-unique: nothing to check
    }

    @Override
    public void add(Document document, Object position, MongoCollection<Object> collection) {
        if (skipsDocument(document)) {
            return;
        }
        noteMultikey(document);
        for (KeyValue keyValue : getKeyValues(document)) {
            map.put(new IndexEntryKey(toArray(keyValue), position), Boolean.TRUE);
        }
    }

    @Override
    public Object remove(Document document) {
        if (skipsDocument(document)) {
            return null;
        }
        Object position = positionOf(document);
        for (KeyValue keyValue : getKeyValues(document)) {
            map.remove(new IndexEntryKey(toArray(keyValue), position));
        }
        return position;
    }

    @Override
    public boolean canHandle(Document query) {
        return false;
    }

    @Override
    public Iterable<Object> getPositions(Document query) {
        throw new UnsupportedOperationException("SecondaryIndex is used through QueryPlanner");
    }

    @Override
    public long getCount() {
        return map.sizeAsLong();
    }

    @Override
    public boolean isEmpty() {
        return map.isEmpty();
    }

    @Override
    public long getDataSize() {
        return getCount();
    }

    @Override
    public void checkUpdate(Document oldDocument, Document newDocument, MongoCollection<Object> collection) {
        // non-unique: nothing to check
    }

    @Override
    public void updateInPlace(Document oldDocument, Document newDocument, Object position,
                              MongoCollection<Object> collection) throws KeyConstraintError {
        if (nullAwareEqualsKeys(oldDocument, newDocument)) {
            return;
        }
        if (!skipsDocument(oldDocument)) {
            for (KeyValue keyValue : getKeyValues(oldDocument)) {
                map.remove(new IndexEntryKey(toArray(keyValue), position));
            }
        }
        add(newDocument, position, collection);
    }

    @Override
    public void drop() {
        // the map is removed by H2Database.dropIndex / drop
    }

    /** Positions of the entries in [low, high] (bounds inclusive), in key order or reversed, lazily. */
    Iterator<Object> positions(IndexEntryKey low, IndexEntryKey high, boolean reverse) {
        Cursor<IndexEntryKey, Boolean> cursor = reverse ? map.cursor(high, low, true) : map.cursor(low, high, false);
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return cursor.hasNext();
            }

            @Override
            public Object next() {
                if (!cursor.hasNext()) {
                    throw new NoSuchElementException();
                }
                return cursor.next().position;
            }
        };
    }

    /** Drops repeated positions (a multikey document has one entry per array element). */
    static Iterator<Object> distinct(Iterator<Object> positions) {
        Set<Object> seen = new HashSet<>();
        return new Iterator<>() {
            private Object next;
            private boolean ready;

            @Override
            public boolean hasNext() {
                while (!ready && positions.hasNext()) {
                    Object candidate = positions.next();
                    if (seen.add(candidate)) {
                        next = candidate;
                        ready = true;
                    }
                }
                return ready;
            }

            @Override
            public Object next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                ready = false;
                return next;
            }
        };
    }
}
