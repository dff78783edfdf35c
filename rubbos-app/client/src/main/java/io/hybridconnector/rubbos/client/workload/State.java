package io.hybridconnector.rubbos.client.workload;

/**
 * The 24 interactions of RUBBoS, numbered as in the original transition tables, plus the two pseudo-states of the
 * Markov chain: going back in the browser's history and ending the session.
 */
public enum State {

    StoriesOfTheDay, Register, RegisterUser, Browse, BrowseCategories, BrowseStoriesInCategory, OlderStories,
    ViewStory, PostComment, StoreComment, ViewComment, ModerateComment, StoreModerateLog, SubmitStory, StoreStory,
    Search, SearchInStories, SearchInComments, SearchInUsers, AuthorLogin, AuthorTasks, ReviewStories,
    AcceptStory, RejectStory,
    /** Re-request the previous page of the history. */
    BACK,
    /** End of session. */
    END;

    /** @return true for the 24 real interactions, false for BACK and END */
    public boolean isInteraction() {
        return ordinal() < BACK.ordinal();
    }

    /** @return true for the six interactions that write to the database */
    public boolean isWrite() {
        return this == RegisterUser || this == StoreComment || this == StoreModerateLog || this == StoreStory
                || this == AcceptStory || this == RejectStory;
    }
}
