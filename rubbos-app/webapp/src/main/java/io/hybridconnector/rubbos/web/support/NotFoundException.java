package io.hybridconnector.rubbos.web.support;

/**
 * A well-formed id names nothing (a deleted submission, a story id that never existed): a 404 page whose text
 * contains "Sorry", which the client emulator treats as "go back", as the original's not-found pages were.
 */
public final class NotFoundException extends Exception {

    private static final long serialVersionUID = 1L;

    public NotFoundException(String message) {
        super(message);
    }
}
