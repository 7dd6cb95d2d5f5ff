package dev.lore.mongo;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import org.h2.mvstore.MVStore;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.BsonConstants;
import de.bwaldvogel.mongo.wire.MongoWireProtocolHandler;
import de.bwaldvogel.mongo.wire.message.MongoQuery;
import io.netty.channel.Channel;

/**
 * H2 (MVStore) backend with Lore's additions:
 * <ul>
 *   <li>reports {@link LoreVersion} (default MongoDB 7.0.0, wire 21) in hello/isMaster/buildInfo/serverStatus,
 *       and answers {@code hello} (mongo-java-server only knows {@code isMaster});</li>
 *   <li>marks every command that may change data so its reply waits for the group commit
 *       ({@link DurableReplyHandler});</li>
 *   <li>collections with real non-unique (secondary) indexes and index-aware query planning
 *       ({@link LoreDatabase}, {@link LoreCollection});</li>
 *   <li>answers the Node driver's countDocuments pipeline ({@code $match} [+ {@code $skip}/{@code $limit}]
 *       + {@code $group {_id: 1, n: {$sum: 1}}}) through the indexed query path instead of a full scan;</li>
 *   <li>pins the store version each command reads, so MVStore never frees a chunk a running read
 *       may still load (see {@link #handleCommand});</li>
 *   <li>{@code loreStatus}: group-commit statistics, and how many documents were read with only the
 *   fields a query needs ({@code partialDecodes}).</li>
 * </ul>
 */
final class LoreBackend extends H2Backend {

    /** Commands that never change data; every other command's reply waits for a commit. */
    private static final Set<String> READ_ONLY_COMMANDS = Set.of(
        "find", "getmore", "count", "distinct", "listcollections", "listindexes", "listdatabases",
        "ismaster", "hello", "buildinfo", "ping", "serverstatus", "dbstats", "collstats", "whatsmyuri",
        "getlog", "hostinfo", "killcursors", "endsessions", "connectionstatus", "getcmdlineopts",
        "getfreemonitoringstatus", "getparameter", "explain", "lorestatus", "getlasterror", "validate");

    private final LoreVersion version;
    private final AtomicInteger connectionIds = new AtomicInteger();
    private volatile GroupCommitter committer;

    static LoreBackend open(MVStore store, LoreVersion version) {
        // H2Backend's constructor already opens the existing databases, i.e. calls our
        // openOrCreateDatabase before any field of this class is set: hand the store over statically.
        LoreDatabase.STORE = store;
        return new LoreBackend(store, version);
    }

    private LoreBackend(MVStore store, LoreVersion version) {
        super(store);
        this.version = version;
        version(version);
    }

    void setCommitter(GroupCommitter committer) {
        this.committer = committer;
    }

    @Override
    protected MongoDatabase openOrCreateDatabase(String databaseName) {
        return new LoreDatabase(databaseName, getMvStore(), getCursorRegistry());
    }

    /**
     * Every command runs with the store version it reads pinned ({@link MVStore#registerVersionUsage}):
     * MVStore frees a chunk whose pages are all superseded once the retention time has passed, even if
     * a read that started on an older version still has to load pages from it ({@code Chunk N not
     * found}). A pinned version's chunks are freed only after the command finishes. Query results are
     * materialised per command (getMore serves an in-memory list), so no read outlives its command.
     */
    @Override
    public Document handleCommand(Channel channel, String databaseName, String command, Document query) {
        MVStore.TxCounter pin = getMvStore().registerVersionUsage();
        try {
            return handleCommandPinned(channel, databaseName, command, query);
        } finally {
            getMvStore().deregisterVersionUsage(pin);
        }
    }

    /** Legacy OP_QUERY reads (the Node driver sends OP_MSG commands, which go through handleCommand). */
    @Override
    public QueryResult handleQuery(MongoQuery query) {
        MVStore.TxCounter pin = getMvStore().registerVersionUsage();
        try {
            return super.handleQuery(query);
        } finally {
            getMvStore().deregisterVersionUsage(pin);
        }
    }

    private Document handleCommandPinned(Channel channel, String databaseName, String command, Document query) {
        String lower = command.toLowerCase(Locale.ROOT);
        switch (lower) {
            case "hello":
            case "ismaster":
                return helloResponse(lower.equals("hello"));
            case "lorestatus":
                return loreStatus();
            case "aggregate": {
                Document count = tryCountDocuments(databaseName, query);
                if (count != null) {
                    return count;
                }
                break;
            }
            default:
                break;
        }
        if (channel != null && mayWrite(lower, query)) {
            channel.attr(DurableReplyHandler.NEEDS_COMMIT).set(Boolean.TRUE);
        }
        return super.handleCommand(channel, databaseName, command, query);
    }

    private static boolean mayWrite(String lowerCommand, Document query) {
        if (lowerCommand.equals("aggregate")) {
            Object pipeline = query.get("pipeline");
            if (pipeline instanceof List) {
                for (Object stage : (List<?>) pipeline) {
                    if (stage instanceof Document
                        && (((Document) stage).containsKey("$out") || ((Document) stage).containsKey("$merge"))) {
                        return true;
                    }
                }
            }
            return false;
        }
        return !READ_ONLY_COMMANDS.contains(lowerCommand);
    }

    private Document helloResponse(boolean hello) {
        Document response = new Document();
        if (hello) {
            response.put("isWritablePrimary", Boolean.TRUE);
        } else {
            response.put("ismaster", Boolean.TRUE);
        }
        response.put("helloOk", Boolean.TRUE);
        response.put("maxBsonObjectSize", Integer.valueOf(BsonConstants.MAX_BSON_OBJECT_SIZE));
        response.put("maxMessageSizeBytes", Integer.valueOf(MongoWireProtocolHandler.MAX_MESSAGE_SIZE_BYTES));
        response.put("maxWriteBatchSize", Integer.valueOf(MongoWireProtocolHandler.MAX_WRITE_BATCH_SIZE));
        response.put("localTime", Instant.now(getClock()));
        response.put("connectionId", Integer.valueOf(connectionIds.incrementAndGet()));
        response.put("minWireVersion", Integer.valueOf(0));
        response.put("maxWireVersion", Integer.valueOf(version.getWireVersion()));
        response.put("readOnly", Boolean.FALSE);
        // No logicalSessionTimeoutMinutes: the driver then sends no lsid and never attempts
        // transactions or retryable writes, none of which mongo-java-server implements.
        Utils.markOkay(response);
        return response;
    }

    private Document loreStatus() {
        Document response = new Document();
        response.put("version", version.toVersionString());
        response.put("wireVersion", Integer.valueOf(version.getWireVersion()));
        GroupCommitter c = committer;
        if (c != null) {
            response.put("groupCommit", c.stats());
        }
        Document partial = new Document();
        partial.put("documents", Long.valueOf(StoreTypes.PARTIAL_DECODES.sum()));
        partial.put("decodedWhole", Long.valueOf(StoreTypes.PARTIAL_FALLBACKS.sum()));
        response.put("partialDecodes", partial);
        Utils.markOkay(response);
        return response;
    }

    /**
     * The Node driver's countDocuments(filter, {skip, limit}) sends
     * [{$match: filter}, {$skip: n}?, {$limit: n}?, {$group: {_id: 1, n: {$sum: 1}}}].
     * mongo-java-server evaluates every aggregation over a full collection scan; this shape is
     * answered with collection.count(filter, skip, limit), which uses the query planner (indexes).
     */
    private Document tryCountDocuments(String databaseName, Document query) {
        Object pipelineObject = query.get("pipeline");
        if (!(pipelineObject instanceof List)) {
            return null;
        }
        List<?> pipeline = (List<?>) pipelineObject;
        if (pipeline.size() < 2 || pipeline.size() > 4) {
            return null;
        }
        Document filter = null;
        int skip = 0;
        int limit = 0;
        for (int i = 0; i < pipeline.size(); i++) {
            if (!(pipeline.get(i) instanceof Document)) {
                return null;
            }
            Document stage = (Document) pipeline.get(i);
            if (stage.size() != 1) {
                return null;
            }
            String op = stage.keySet().iterator().next();
            Object arg = stage.get(op);
            boolean last = i == pipeline.size() - 1;
            if (i == 0 && op.equals("$match") && arg instanceof Document) {
                filter = (Document) arg;
            } else if (!last && i > 0 && op.equals("$skip") && arg instanceof Number && limit == 0) {
                skip = ((Number) arg).intValue();
            } else if (!last && i > 0 && op.equals("$limit") && arg instanceof Number) {
                limit = ((Number) arg).intValue();
            } else if (last && op.equals("$group") && isCountGroup(arg)) {
                // ok
            } else {
                return null;
            }
        }
        if (filter == null || skip < 0 || limit < 0) {
            return null;
        }
        String collectionName = String.valueOf(query.get("aggregate"));
        MongoDatabase database = resolveDatabase(databaseName);
        MongoCollection<?> collection = database.resolveCollection(collectionName, false);
        int n = collection == null ? 0 : collection.count(filter, skip, limit);
        List<Document> batch = n == 0 ? List.of() : List.of(new Document("_id", Integer.valueOf(1)).append("n", Integer.valueOf(n)));
        Document cursor = new Document("id", Long.valueOf(0))
            .append("ns", databaseName + "." + collectionName)
            .append("firstBatch", batch);
        Document response = new Document("cursor", cursor);
        Utils.markOkay(response);
        return response;
    }

    private static boolean isCountGroup(Object arg) {
        if (!(arg instanceof Document)) {
            return false;
        }
        Document group = (Document) arg;
        if (group.size() != 2 || !group.containsKey("_id") || !(group.get("_id") instanceof Number)
            || ((Number) group.get("_id")).intValue() != 1) {
            return false;
        }
        Object n = group.get("n");
        if (!(n instanceof Document) || ((Document) n).size() != 1) {
            return false;
        }
        Object sum = ((Document) n).get("$sum");
        return sum instanceof Number && ((Number) sum).intValue() == 1;
    }
}
