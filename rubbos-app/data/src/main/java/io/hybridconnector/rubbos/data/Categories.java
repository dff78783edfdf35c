package io.hybridconnector.rubbos.data;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The 85 story categories; a category's id is its position in {@code categories.txt}. Any thread. */
public final class Categories {

    private static final List<String> NAMES = load();

    private Categories() {
    }

    public static List<String> names() {
        return NAMES;
    }

    private static List<String> load() {
        List<String> names = new ArrayList<>();
        try (InputStream in = Categories.class.getResourceAsStream("categories.txt");
             BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    names.add(line.strip());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("categories.txt is missing from the classpath", e);
        }
        return Collections.unmodifiableList(names);
    }
}
