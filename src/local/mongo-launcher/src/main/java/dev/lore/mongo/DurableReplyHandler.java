package dev.lore.mongo;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.util.AttributeKey;

/**
 * Outbound handler placed after mongo-java-server's MongoDatabaseHandler: a reply to a command that
 * may have changed data (marked by {@link LoreBackend} with {@link #NEEDS_COMMIT}) is not sent until
 * the group commit covering that write has completed. The event loop is never blocked: the reply is
 * parked and written from the channel's own event loop after the commit.
 * Replies on one connection keep their order (a reply queued behind a parked one is parked too).
 */
final class DurableReplyHandler extends ChannelOutboundHandlerAdapter {

    static final AttributeKey<Boolean> NEEDS_COMMIT = AttributeKey.valueOf("lore.needsCommit");

    private final GroupCommitter committer;

    /** Replies of this channel that are parked; only touched on the channel's event loop. */
    private int parked;

    DurableReplyHandler(GroupCommitter committer) {
        this.committer = committer;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        Boolean needsCommit = ctx.channel().attr(NEEDS_COMMIT).getAndSet(null);
        if (needsCommit == null && parked == 0) {
            ctx.write(msg, promise);
            return;
        }
        parked++;
        committer.afterCommit(() -> ctx.executor().execute(() -> {
            parked--;
            ctx.writeAndFlush(msg, promise);
        }));
    }
}
