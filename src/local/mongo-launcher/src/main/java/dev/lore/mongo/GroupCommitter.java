package dev.lore.mongo;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import org.h2.mvstore.MVStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit for the MVStore.
 *
 * A write command's reply is held back until an MVStore commit that started after the write
 * finished has completed. One dedicated thread runs the commits: while it commits, further
 * writes queue up and are all covered by its next commit, so concurrent writers share one commit.
 *
 * MVStore.commit() writes the new chunk with FileChannel.write (synchronously when called
 * explicitly), i.e. into the OS page cache: that survives kill -9 of this process. Only with
 * {@code fsync=true} is FileChannel.force() also called per commit (survives power loss; slower).
 */
final class GroupCommitter {

    private static final Logger log = LoggerFactory.getLogger(GroupCommitter.class);

    private static final class Waiter {
        final long ticket;
        final Runnable action;

        Waiter(long ticket, Runnable action) {
            this.ticket = ticket;
            this.action = action;
        }
    }

    private final MVStore store;
    private final boolean fsync;
    private final Thread thread;
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();

    private long requested;
    private long committed;
    private boolean stopping;
    private boolean stopped;

    // statistics (guarded by this)
    private long commits;
    private long commitNanos;
    private long maxGroup;

    GroupCommitter(MVStore store, boolean fsync) {
        this.store = store;
        this.fsync = fsync;
        this.thread = new Thread(this::run, "lore-group-commit");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Runs {@code action} once everything written before this call is committed to the file. */
    void afterCommit(Runnable action) {
        synchronized (this) {
            if (!stopped) {
                long ticket = ++requested;
                waiters.addLast(new Waiter(ticket, action));
                notifyAll();
                return;
            }
        }
        // after stop(): the store was committed (or is being closed); nothing left to wait for
        action.run();
    }

    private void run() {
        while (true) {
            long target;
            long groupStart;
            synchronized (this) {
                while (requested == committed && !stopping) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        // keep going until stop() is called
                    }
                }
                if (requested == committed) {
                    stopped = true;
                    notifyAll();
                    return;
                }
                target = requested;
                groupStart = committed;
            }
            long t0 = System.nanoTime();
            try {
                store.commit();
                if (fsync) {
                    store.sync();
                }
            } catch (Throwable t) {
                // The write may not be on disk: never acknowledge it. Exit hard; the parent sees the
                // exit and the next start recovers the last committed state from the file.
                log.error("MVStore commit failed; exiting so that no write is acknowledged without being stored", t);
                System.err.flush();
                Runtime.getRuntime().halt(12);
            }
            long elapsed = System.nanoTime() - t0;
            List<Waiter> ready = new ArrayList<>();
            synchronized (this) {
                committed = target;
                commits++;
                commitNanos += elapsed;
                maxGroup = Math.max(maxGroup, target - groupStart);
                while (!waiters.isEmpty() && waiters.peekFirst().ticket <= target) {
                    ready.add(waiters.pollFirst());
                }
            }
            for (Waiter w : ready) {
                try {
                    w.action.run();
                } catch (Throwable t) {
                    log.warn("reply after commit failed", t);
                }
            }
        }
    }

    /** Commits whatever is pending, releases all waiters and stops the thread. */
    void stop() {
        synchronized (this) {
            stopping = true;
            notifyAll();
        }
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            stopped = true;
        }
    }

    synchronized de.bwaldvogel.mongo.bson.Document stats() {
        de.bwaldvogel.mongo.bson.Document d = new de.bwaldvogel.mongo.bson.Document();
        d.put("writesAcknowledgedAfterCommit", Long.valueOf(committed));
        d.put("commits", Long.valueOf(commits));
        d.put("avgCommitMicros", Double.valueOf(commits == 0 ? 0.0 : commitNanos / 1000.0 / commits));
        d.put("avgGroupSize", Double.valueOf(commits == 0 ? 0.0 : (double) committed / commits));
        d.put("maxGroupSize", Long.valueOf(maxGroup));
        d.put("fsync", Boolean.valueOf(fsync));
        return d;
    }
}
