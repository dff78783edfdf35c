package io.hybridconnector.rubbos.web.support;

import jakarta.servlet.http.HttpServletRequest;

/**
 * Typed, validated access to one request's parameters. Every rejection names the parameter and what was wrong, and
 * becomes a 400 page; nothing unvalidated reaches SQL. Confined to the request's thread.
 */
public final class Params {

    /** Page size when the request does not say; the client sends 20. */
    public static final int DEFAULT_PAGE_SIZE = 25;
    public static final int MAX_PAGE_SIZE = 100;
    public static final int MAX_PAGE = 100_000;

    private final HttpServletRequest request;

    public Params(HttpServletRequest request) {
        this.request = request;
    }

    public boolean has(String name) {
        String value = request.getParameter(name);
        return value != null && !value.isEmpty();
    }

    /** @return the value, possibly empty (a posted comment may have an empty subject), never null */
    public String text(String name, int maxLength) throws BadParameterException {
        String value = request.getParameter(name);
        if (value == null) {
            throw new BadParameterException(name, "is missing");
        }
        return checkLength(name, value, maxLength);
    }

    /** @return the value, which must not be empty */
    public String nonEmpty(String name, int maxLength) throws BadParameterException {
        String value = text(name, maxLength);
        if (value.isBlank()) {
            throw new BadParameterException(name, "must not be empty");
        }
        return value;
    }

    public String optionalText(String name, String fallback, int maxLength) throws BadParameterException {
        String value = request.getParameter(name);
        return value == null ? fallback : checkLength(name, value, maxLength);
    }

    public int integer(String name, int min, int max) throws BadParameterException {
        String value = request.getParameter(name);
        if (value == null || value.isEmpty()) {
            throw new BadParameterException(name, "is missing");
        }
        return parse(name, value, min, max);
    }

    public int optionalInteger(String name, int fallback, int min, int max) throws BadParameterException {
        String value = request.getParameter(name);
        return value == null || value.isEmpty() ? fallback : parse(name, value, min, max);
    }

    /** @return a database id: a non-negative integer */
    public int id(String name) throws BadParameterException {
        return integer(name, 0, Integer.MAX_VALUE);
    }

    public int page() throws BadParameterException {
        return optionalInteger("page", 0, 0, MAX_PAGE);
    }

    public int pageSize() throws BadParameterException {
        return optionalInteger("nbOfStories", DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE);
    }

    public CommentTable commentTable() throws BadParameterException {
        String value = request.getParameter("comment_table");
        if (value == null || value.isEmpty()) {
            throw new BadParameterException("comment_table", "is missing");
        }
        CommentTable table = CommentTable.byName(value);
        if (table == null) {
            throw new BadParameterException("comment_table", "must be 'comments' or 'old_comments'");
        }
        return table;
    }

    private static int parse(String name, String value, int min, int max) throws BadParameterException {
        int parsed;
        try {
            parsed = Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            throw new BadParameterException(name, "must be an integer");
        }
        if (parsed < min || parsed > max) {
            throw new BadParameterException(name, "must be between " + min + " and " + max);
        }
        return parsed;
    }

    private static String checkLength(String name, String value, int maxLength) throws BadParameterException {
        if (value.length() > maxLength) {
            throw new BadParameterException(name, "is longer than " + maxLength + " characters");
        }
        return value;
    }
}
