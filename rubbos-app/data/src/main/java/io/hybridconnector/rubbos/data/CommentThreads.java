package io.hybridconnector.rubbos.data;

import java.util.Random;

/**
 * The shape of a story's discussion: how many comments it gets (Lomax, a heavy-tailed distribution: most stories
 * draw a handful, a few draw hundreds) and where each new comment attaches (a new top-level thread, or a reply to
 * an earlier comment). Stateless; any thread, each with its own {@link Random}.
 */
final class CommentThreads {

    /** Share of comments that start a new top-level thread; the rest are replies. */
    static final double TOP_LEVEL_SHARE = 0.35;

    private final DataSpec spec;

    CommentThreads(DataSpec spec) {
        this.spec = spec;
    }

    /**
     * @return the number of comments one story gets: at least one (a story page without any comment has no
     *         comment link, and the client would have to go back), heavy-tailed above that
     */
    int commentsFor(Random random) {
        double u = random.nextDouble();
        double lomax = spec.meanCommentsScale() * (Math.pow(1 - u, -1 / spec.meanCommentsShape()) - 1);
        return (int) Math.min(spec.maxCommentsPerStory(), 1 + Math.floor(lomax));
    }

    /**
     * @param earlier how many comments of this story exist already
     * @return the index (0-based, within this story) of the comment the next one replies to, or -1 for top level
     */
    int parentIndex(Random random, int earlier) {
        if (earlier == 0 || random.nextDouble() < TOP_LEVEL_SHARE) {
            return -1;
        }
        // Replies favour recent comments, as a live discussion does: the square pulls the draw towards the end.
        double u = random.nextDouble();
        return earlier - 1 - (int) (u * u * earlier);
    }
}
