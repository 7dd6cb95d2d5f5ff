package dev.lore.mongo;

import java.util.List;

import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.KeyValue;
import de.bwaldvogel.mongo.backend.h2.H2Database;

/**
 * H2Database whose collections are {@link LoreCollection}s and whose non-unique indexes are real
 * {@link SecondaryIndex}es (upstream ignores non-unique indexes: it logs "not yet implemented" and
 * every query on such a field scans the collection).
 * Map names are the ones upstream uses, so dropIndex/drop/dropDatabase remove our maps too;
 * documents and index keys are stored with {@link StoreTypes} (BSON) instead of Java serialization,
 * documents as {@link StoredDocument}s (their BSON, encoded once).
 */
final class LoreDatabase extends H2Database {

    /**
     * The store. Static because H2Database's constructor calls openOrCreateCollection /
     * openOrCreateSecondaryIndex (for existing collections) before this subclass's fields are set.
     * One launcher process serves exactly one store.
     */
    static volatile MVStore STORE;

    private static final String DATABASES_PREFIX = "databases.";
    private static final String META_PREFIX = "meta.";

    LoreDatabase(String databaseName, MVStore mvStore, CursorRegistry cursorRegistry) {
        super(databaseName, mvStore, cursorRegistry);
    }

    @Override
    protected MongoCollection<Object> openOrCreateCollection(String collectionName, CollectionOptions options) {
        String fullCollectionName = getFullCollectionNamespace(collectionName);
        MVMap<Object, StoredDocument> dataMap = STORE.openMap(DATABASES_PREFIX + fullCollectionName,
            new MVMap.Builder<Object, StoredDocument>()
                .keyType(StoreTypes.ValueType.INSTANCE)
                .valueType(StoreTypes.StoredDocumentType.INSTANCE));
        MVMap<String, Object> metaMap = STORE.openMap(META_PREFIX + fullCollectionName);
        return new LoreCollection(this, collectionName, options, dataMap, metaMap, cursorRegistry);
    }

    @Override
    protected Index<Object> openOrCreateUniqueIndex(String collectionName, String indexName, List<IndexKey> keys,
                                                    boolean sparse) {
        MVMap<KeyValue, Object> map = STORE.openMap(getFullCollectionNamespace(collectionName) + "._index_" + indexName,
            new MVMap.Builder<KeyValue, Object>()
                .keyType(StoreTypes.KeyValueType.INSTANCE)
                .valueType(StoreTypes.ValueType.INSTANCE));
        return new LoreUniqueIndex(map, indexName, keys, sparse);
    }

    @Override
    protected Index<Object> openOrCreateSecondaryIndex(String collectionName, String indexName, List<IndexKey> keys,
                                                       boolean sparse) {
        String fullCollectionName = getFullCollectionNamespace(collectionName);
        MVMap<IndexEntryKey, Boolean> map = STORE.openMap(fullCollectionName + "._index_" + indexName,
            new MVMap.Builder<IndexEntryKey, Boolean>().keyType(StoreTypes.IndexEntryKeyType.INSTANCE));
        MVMap<String, Object> metaMap = STORE.openMap(META_PREFIX + fullCollectionName);
        return new SecondaryIndex(map, metaMap, indexName, keys, sparse);
    }
}
