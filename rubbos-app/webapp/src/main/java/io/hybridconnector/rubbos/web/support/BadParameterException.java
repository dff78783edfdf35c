package io.hybridconnector.rubbos.web.support;

/** A request parameter is missing or malformed: the client gets a 400 page naming the parameter. */
public final class BadParameterException extends Exception {

    private static final long serialVersionUID = 1L;

    private final String parameter;

    public BadParameterException(String parameter, String problem) {
        super(problem);
        this.parameter = parameter;
    }

    public String parameter() {
        return parameter;
    }
}
