package dev.rota.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A command as a POSIX shell would take it back: words with spaces, quotes or other special
 * characters in single quotes, so that what {@code describe} shows can be pasted and runs the same.
 */
final class ShellWords {
  private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_@%+=:,./-]+");

  private ShellWords() {}

  /** {@code sh -c 'echo "hi there"; exit 3'}; {@code -} for no words. */
  static String of(JsonNode words) {
    List<String> quoted = new ArrayList<>();
    words.forEach(w -> quoted.add(quoted(w.asText())));
    return quoted.isEmpty() ? "-" : String.join(" ", quoted);
  }

  static String quoted(String word) {
    if (PLAIN.matcher(word).matches()) {
      return word;
    }
    return "'" + word.replace("'", "'\\''") + "'";
  }
}
