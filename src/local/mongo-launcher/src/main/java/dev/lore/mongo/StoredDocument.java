package dev.lore.mongo;


import de.bwaldvogel.mongo.bson.Document;

/**
 * A value of a collection's data map: the document's BSON, encoded once when it is inserted or
 * replaced, and the decoded document, made on first read and kept while the page is cached.
 *
 * Why: MVStore rewrites a whole page whenever one of its entries changes (and again when
 * compaction moves it), so with Document values every commit re-encoded every document that
 * shares a page with a changed one, and compaction decoded and re-encoded documents it only
 * moves. With the bytes kept, a page write copies them. The stored bytes are the same BSON as
 * before (store format 1 is unchanged).
 *
 * The bytes are the truth; the decoded document is a cache. Upstream updates a document in place
 * and then hands it back through handleUpdate, which stores a new StoredDocument, so the bytes
 * of a committed version never change.
 */
final class StoredDocument {

    final byte[] bson;
    private volatile Document decoded;

    private StoredDocument(byte[] bson, Document decoded) {
        this.bson = bson;
        this.decoded = decoded;
    }

    /** A document being stored: encoded now, and the caller's instance kept as the decoded one. */
    static StoredDocument of(Document document) {
        return new StoredDocument(StoreTypes.bson(document), document);
    }

    /** A document read from the store: decoded when first asked for. */
    static StoredDocument fromBson(byte[] bson) {
        return new StoredDocument(bson, null);
    }

    Document document() {
        Document d = decoded;
        if (d == null) {
            d = StoreTypes.decode(bson);
            decoded = d;
        }
        return d;
    }

    /**
     * At least the fields {@code names} names: the whole document when it is decoded already, else
     * only those (not kept: the next reader may need others).
     */
    Document fields(FieldTree names) {
        Document d = decoded;
        if (d != null) {
            return d;
        }
        Document partial = StoreTypes.decodeFields(bson, names);
        return partial != null ? partial : document();
    }

    /** Size of the BSON, what MongoDB reports as a document's data size. */
    int size() {
        return bson.length;
    }
}
