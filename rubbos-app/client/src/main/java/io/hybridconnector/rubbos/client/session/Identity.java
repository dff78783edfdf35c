package io.hybridconnector.rubbos.client.session;

import java.util.Random;

/**
 * Who a session logs in as: a random regular user {@code userK} or, in author sessions, a random author
 * {@code authorK}; the password is {@code passwordK} in both cases, as in the generated data.
 */
public record Identity(String nickname, String password) {

    public static Identity randomUser(Random random, int users) {
        int k = 1 + random.nextInt(users);
        return new Identity("user" + k, "password" + k);
    }

    public static Identity randomAuthor(Random random, int authors) {
        int k = 1 + random.nextInt(authors);
        return new Identity("author" + k, "password" + k);
    }
}
