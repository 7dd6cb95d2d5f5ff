package dev.lore.mongo;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import org.h2.mvstore.MVStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import de.bwaldvogel.mongo.wire.MongoDatabaseHandler;
import de.bwaldvogel.mongo.wire.MongoExceptionHandler;
import de.bwaldvogel.mongo.wire.MongoWireMessageEncoder;
import de.bwaldvogel.mongo.wire.MongoWireProtocolHandler;
import de.bwaldvogel.mongo.wire.MongoWireReplyEncoder;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;

/**
 * Lore's local MongoDB wire-protocol server.
 *
 * <pre>
 * java -jar lore-mongo-launcher.jar --host 127.0.0.1 --port 27018 --db-file /path/lore.mv.db
 * </pre>
 *
 * stdout: exactly one line once listening: {@code LORE_MONGO_READY port=N host=H version=7.0.0 wire=21 pid=P}.
 * stderr: logs. Exits 0 on SIGTERM/SIGINT or when stdin reaches EOF (after committing and closing
 * the store); 2 on bad arguments; 10 when the port is in use; 11 when the db file cannot be opened
 * (e.g. locked by another process); 12 when a commit fails.
 */
public final class Main {

    static final int EXIT_USAGE = 2;
    static final int EXIT_PORT_IN_USE = 10;
    static final int EXIT_STORE = 11;

    private static final String USAGE = "usage: java -jar lore-mongo-launcher.jar --db-file FILE [--host 127.0.0.1] [--port 27017]\n"
        + "         [--server-version 7.0.0] [--wire-version 21] [--fsync] [--no-group-commit]\n"
        + "         [--no-stdin-watch] [--log-level warn|info|debug] [--cache-mb 64]\n"
        + "         [--retention-ms 10000] [--keys-per-page 16] [--auto-compact-fill-rate 90]\n"
        + "         [--close-compact-ms 2000]";

    private static Logger log;

    private final Options options;
    private MVStore store;
    private LoreBackend backend;
    private GroupCommitter committer;
    private EventLoopGroup bossGroup;
    private EventLoopGroup workerGroup;
    private ChannelGroup clients;
    private Channel serverChannel;
    private boolean shutDown;
    /** The main thread waits on this (all other threads are daemons). */
    private final java.util.concurrent.CountDownLatch finished = new java.util.concurrent.CountDownLatch(1);

    private Main(Options options) {
        this.options = options;
    }

    static final class Options {
        String host = "127.0.0.1";
        int port = 27017;
        String dbFile;
        String serverVersion = LoreVersion.DEFAULT_VERSION;
        int wireVersion = LoreVersion.DEFAULT_WIRE_VERSION;
        boolean fsync;
        boolean groupCommit = true;
        boolean stdinWatch = true;
        String logLevel = "warn";
        int cacheMb = 64;
        int retentionMs = 10_000;
        int keysPerPage = 16;
        int autoCompactFillRate = 90;
        int closeCompactMs = 2000;

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                switch (arg) {
                    case "--host": o.host = value(args, ++i, arg); break;
                    case "--port": o.port = intValue(args, ++i, arg, 0, 65535); break;
                    case "--db-file": o.dbFile = value(args, ++i, arg); break;
                    case "--server-version": o.serverVersion = value(args, ++i, arg); break;
                    case "--wire-version": o.wireVersion = intValue(args, ++i, arg, 9, 100); break;
                    case "--fsync": o.fsync = true; break;
                    case "--no-group-commit": o.groupCommit = false; break;
                    case "--no-stdin-watch": o.stdinWatch = false; break;
                    case "--log-level": o.logLevel = value(args, ++i, arg).toLowerCase(Locale.ROOT); break;
                    case "--cache-mb": o.cacheMb = intValue(args, ++i, arg, 1, 65536); break;
                    case "--retention-ms": o.retentionMs = intValue(args, ++i, arg, 0, 3_600_000); break;
                    case "--keys-per-page": o.keysPerPage = intValue(args, ++i, arg, 4, 1024); break;
                    case "--auto-compact-fill-rate": o.autoCompactFillRate = intValue(args, ++i, arg, 0, 100); break;
                    case "--close-compact-ms": o.closeCompactMs = intValue(args, ++i, arg, 0, 600_000); break;
                    case "--help": case "-h": throw new IllegalArgumentException("");
                    default: throw new IllegalArgumentException("unknown argument '" + arg + "'");
                }
            }
            if (o.dbFile == null) {
                throw new IllegalArgumentException("--db-file is required");
            }
            return o;
        }

        private static String value(String[] args, int i, String name) {
            if (i >= args.length) {
                throw new IllegalArgumentException(name + " needs a value");
            }
            return args[i];
        }

        private static int intValue(String[] args, int i, String name, int min, int max) {
            String v = value(args, i, name);
            try {
                int n = Integer.parseInt(v);
                if (n < min || n > max) {
                    throw new IllegalArgumentException(name + " must be between " + min + " and " + max + ", got " + v);
                }
                return n;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(name + " must be a number, got '" + v + "'");
            }
        }
    }

    public static void main(String[] args) {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            if (!e.getMessage().isEmpty()) {
                System.err.println("lore-mongo: " + e.getMessage());
            }
            System.err.println(USAGE);
            System.exit(EXIT_USAGE);
            return;
        }
        // slf4j-simple, configured before the first logger is created: everything to stderr
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", options.logLevel);
        System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
        System.setProperty("org.slf4j.simpleLogger.dateTimeFormat", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX");
        System.setProperty("org.slf4j.simpleLogger.showShortLogName", "true");
        // quiet the per-connection chatter even at info level
        System.setProperty("org.slf4j.simpleLogger.log.de.bwaldvogel.mongo.wire.MongoWireProtocolHandler",
            options.logLevel.equals("debug") || options.logLevel.equals("trace") ? options.logLevel : "warn");
        log = LoggerFactory.getLogger(Main.class);

        Main main = new Main(options);
        main.run();
        try {
            main.finished.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        LoreVersion version;
        try {
            version = new LoreVersion(options.serverVersion, options.wireVersion);
        } catch (IllegalArgumentException e) {
            fail(EXIT_USAGE, e.getMessage());
            return;
        }

        File dbFile = new File(options.dbFile).getAbsoluteFile();
        File parent = dbFile.getParentFile();
        if (parent != null && !parent.isDirectory() && !parent.mkdirs()) {
            fail(EXIT_STORE, "cannot create directory " + parent);
        }
        long t0 = System.nanoTime();
        try {
            store = new MVStore.Builder()
                .fileName(dbFile.getPath())
                .cacheSize(options.cacheMb)
                // every acknowledged write is a commit (a new chunk): smaller pages mean less is
                // rewritten per commit
                .keysPerPage(options.keysPerPage)
                .autoCompactFillRate(options.autoCompactFillRate)
                .open();
            // Chunks without live data are reused after this long (H2 default 45 s). Reads do not
            // rely on it: every command pins the version it reads until it returns
            // (LoreBackend.handleCommand, MVStore.registerVersionUsage), so a chunk a running read
            // may still load is never freed, however long the read takes; without the pin a scan
            // longer than this answered "Chunk N not found". A page-cache-only durability model
            // (kill -9) does not need H2's "let the disk flush" margin either, and the default
            // makes the file grow by every chunk written in the last 45 s (~700 MB measured).
            store.getFileStore().setRetentionTime(options.retentionMs);
            checkFormat(store, dbFile);
            backend = LoreBackend.open(store, version);
        } catch (RuntimeException e) {
            String message = String.valueOf(e.getMessage());
            if (message.contains("locked")) {
                fail(EXIT_STORE, "database file " + dbFile + " is locked by another process (is another Lore MongoDB server running on it?)");
            }
            log.error("cannot open database file {}", dbFile, e);
            fail(EXIT_STORE, "cannot open database file " + dbFile + ": " + message);
            return;
        }
        log.info("opened {} in {} ms", dbFile, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));

        committer = new GroupCommitter(store, options.fsync);
        committer.start();
        backend.setCommitter(committer);

        try {
            bind();
        } catch (Throwable e) {
            boolean inUse = e instanceof BindException
                || String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT).contains("address already in use");
            closeStoreQuietly();
            if (inUse) {
                fail(EXIT_PORT_IN_USE, "port " + options.port + " on " + options.host
                    + " is already in use (another MongoDB or Lore server?); choose another port");
            }
            log.error("cannot listen on {}:{}", options.host, options.port, e);
            fail(1, "cannot listen on " + options.host + ":" + options.port + ": " + e);
        }

        installSignalHandlers();
        Runtime.getRuntime().addShutdownHook(new Thread(this::shutdown, "lore-mongo-shutdown-hook"));

        InetSocketAddress address = (InetSocketAddress) serverChannel.localAddress();
        System.out.println("LORE_MONGO_READY port=" + address.getPort() + " host=" + options.host
            + " version=" + version.toVersionString() + " wire=" + version.getWireVersion()
            + " pid=" + ProcessHandle.current().pid());
        System.out.flush();
        log.info("listening on {}:{} ({}; group commit {}, fsync {})", options.host, address.getPort(), dbFile,
            options.groupCommit ? "on" : "off", options.fsync);

        if (options.stdinWatch) {
            Thread watcher = new Thread(this::watchStdin, "lore-stdin-watch");
            watcher.setDaemon(true);
            watcher.start();
        }
    }

    /** Stores written by this launcher carry lore.meta/format; refuse files in another format. */
    private static void checkFormat(MVStore store, File dbFile) {
        org.h2.mvstore.MVMap<String, Object> meta = store.openMap("lore.meta");
        Object format = meta.get("format");
        if (format == null) {
            boolean hasData = store.getMapNames().stream().anyMatch(name -> name.startsWith("databases."));
            if (hasData) {
                fail(EXIT_STORE, "database file " + dbFile + " was not written by this launcher (no lore.meta/format); "
                    + "it cannot be opened with store format " + StoreTypes.FORMAT);
            }
            meta.put("format", Integer.valueOf(StoreTypes.FORMAT));
            store.commit();
        } else if (!Integer.valueOf(StoreTypes.FORMAT).equals(format)) {
            fail(EXIT_STORE, "database file " + dbFile + " has store format " + format + ", this launcher reads format "
                + StoreTypes.FORMAT);
        }
    }

    private void bind() {
        bossGroup = new NioEventLoopGroup(1, new DaemonThreadFactory("lore-mongo-boss"));
        // netty's default is 2 x cores; the handlers never block on commits, so that is plenty
        workerGroup = new NioEventLoopGroup(0, new DaemonThreadFactory("lore-mongo-worker"));
        clients = new DefaultChannelGroup("lore-mongo-clients", workerGroup.next());
        ServerBootstrap bootstrap = new ServerBootstrap()
            .group(bossGroup, workerGroup)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, 128)
            .option(ChannelOption.SO_REUSEADDR, Boolean.TRUE)
            .localAddress(new InetSocketAddress(options.host, options.port))
            .childOption(ChannelOption.TCP_NODELAY, Boolean.TRUE)
            .childHandler(new ChannelInitializer<SocketChannel>() {
                @Override
                public void initChannel(SocketChannel ch) {
                    ch.pipeline().addLast(new MongoWireReplyEncoder());
                    ch.pipeline().addLast(new MongoWireMessageEncoder());
                    ch.pipeline().addLast(new MongoWireProtocolHandler());
                    ch.pipeline().addLast(new MongoDatabaseHandler(backend, clients));
                    ch.pipeline().addLast(new MongoExceptionHandler());
                    if (options.groupCommit) {
                        // last in the pipeline = first outbound handler a reply passes through
                        ch.pipeline().addLast(new DurableReplyHandler(committer));
                    }
                }
            });
        serverChannel = bootstrap.bind().syncUninterruptibly().channel();
    }

    @SuppressWarnings("restriction")
    private void installSignalHandlers() {
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                sun.misc.Signal.handle(new sun.misc.Signal(name), signal -> {
                    log.info("SIG{} received, shutting down", name);
                    exitAfterShutdown(0);
                });
            } catch (Throwable e) {
                log.debug("cannot handle SIG{}: {}", name, e.toString());
            }
        }
    }

    private void watchStdin() {
        InputStream in = System.in;
        byte[] buffer = new byte[256];
        try {
            while (in.read(buffer) >= 0) {
                // the parent writes nothing; we only wait for EOF
            }
        } catch (IOException e) {
            // treat as closed
        }
        log.info("stdin closed (parent gone), shutting down");
        exitAfterShutdown(0);
    }

    private void exitAfterShutdown(int code) {
        Thread t = new Thread(() -> {
            shutdown();
            System.exit(code);
        }, "lore-mongo-exit");
        t.start();
    }

    private synchronized void shutdown() {
        if (shutDown) {
            return;
        }
        shutDown = true;
        long t0 = System.nanoTime();
        try {
            if (serverChannel != null) {
                serverChannel.close().syncUninterruptibly();
            }
            if (clients != null) {
                clients.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
            }
            if (bossGroup != null) {
                bossGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
            }
            if (workerGroup != null) {
                workerGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
            }
        } catch (Throwable e) {
            log.warn("error while closing connections", e);
        }
        if (committer != null) {
            committer.stop();
        }
        closeStoreQuietly();
        log.info("shut down in {} ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
        finished.countDown();
    }

    private void closeStoreQuietly() {
        try {
            if (store != null && !store.isClosed() && backend != null) {
                // commit, compact for a bounded time (moves live pages out of sparse chunks left by
                // per-write commits) and shrink the file; then the backend's close is a no-op for the store
                store.close(options.closeCompactMs);
            }
            if (backend != null) {
                backend.close(); // commits and closes the MVStore (if still open)
                backend = null;
            } else if (store != null && !store.isClosed()) {
                store.close();
            }
        } catch (Throwable e) {
            log.error("error while closing the store", e);
        }
    }

    private static void fail(int code, String message) {
        System.err.println("lore-mongo: error: " + message);
        System.err.flush();
        System.exit(code);
    }

    private static final class DaemonThreadFactory implements java.util.concurrent.ThreadFactory {
        private final String prefix;
        private int n;

        DaemonThreadFactory(String prefix) {
            this.prefix = prefix;
        }

        @Override
        public synchronized Thread newThread(Runnable r) {
            Thread t = new Thread(r, prefix + "-" + (++n));
            t.setDaemon(true);
            return t;
        }
    }
}
