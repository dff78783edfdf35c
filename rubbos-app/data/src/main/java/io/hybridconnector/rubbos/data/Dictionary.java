package io.hybridconnector.rubbos.data;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * The word list that story titles, bodies and comments are made of, and that the client draws its search words
 * from. Both sides must share it, otherwise a search finds nothing; so the words are synthesised from a fixed seed
 * rather than read from a file, and every JVM that builds a {@code Dictionary} gets the same list in the same order.
 * <p>
 * Immutable after construction; any thread.
 */
public final class Dictionary {

    /** Size of the original benchmark's word list (4,563 lines), kept so that search selectivity is comparable. */
    public static final int DEFAULT_SIZE = 4563;

    private static final String[] ONSETS = {"b", "br", "c", "ch", "d", "dr", "f", "g", "gr", "h", "j", "k", "l", "m",
        "n", "p", "pl", "qu", "r", "s", "sh", "st", "t", "tr", "v", "w", "z"};
    private static final String[] VOWELS = {"a", "e", "i", "o", "u", "ai", "ea", "io", "ou"};
    private static final String[] CODAS = {"", "", "", "n", "r", "s", "t", "x", "nd", "ll"};

    /** The separators that follow a word 60% of the time, each with 10%; a plain space the other 40%. */
    private static final String[] SEPARATORS = {", ", ". ", " ? ", " ! ", ": ", " ; "};

    private static final Dictionary STANDARD = new Dictionary(DEFAULT_SIZE, 0x5EED_D1C7L);

    private final List<String> words;

    private Dictionary(int size, long seed) {
        Random random = new Random(seed);
        Set<String> unique = new LinkedHashSet<>();
        while (unique.size() < size) {
            unique.add(syllables(random, 1 + random.nextInt(3)));
        }
        words = Collections.unmodifiableList(new ArrayList<>(unique));
    }

    /** @return the one word list every part of the benchmark uses */
    public static Dictionary standard() {
        return STANDARD;
    }

    private static String syllables(Random random, int count) {
        StringBuilder word = new StringBuilder();
        for (int i = 0; i < count; i++) {
            word.append(ONSETS[random.nextInt(ONSETS.length)]).append(VOWELS[random.nextInt(VOWELS.length)]);
        }
        return word.append(CODAS[random.nextInt(CODAS.length)]).toString();
    }

    public int size() {
        return words.size();
    }

    public String word(int index) {
        return words.get(index);
    }

    /** @return a word drawn uniformly, as the client picks its search words */
    public String randomWord(Random random) {
        return words.get(random.nextInt(words.size()));
    }

    /**
     * Random prose of about {@code targetLength} characters: words, each followed by a space or a punctuation
     * separator, stopping once the target is reached and cutting to {@code maxLength}.
     */
    public String text(Random random, int targetLength, int maxLength) {
        StringBuilder text = new StringBuilder(targetLength + 16);
        while (text.length() < targetLength) {
            text.append(randomWord(random));
            text.append(random.nextInt(10) < 4 ? " " : SEPARATORS[random.nextInt(SEPARATORS.length)]);
        }
        return text.length() > maxLength ? text.substring(0, maxLength) : text.toString();
    }
}
