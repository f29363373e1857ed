package dev.rota.api.problem;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The JSON decoder's messages, made readable: without the source location it cannot show anyway,
 * and with the property it names put first, as a field.
 */
final class DecodingMessages {
  private static final Pattern PROPERTY =
      Pattern.compile("Error decoding property \\[\\S+ (\\w+)\\] of type \\[[^\\]]*\\]: ?");
  private static final Pattern ARGUMENT =
      Pattern.compile("Failed to convert argument \\[\\w+\\] for value \\[[^\\]]*\\] due to: ?");

  private DecodingMessages() {}

  static String clean(String message) {
    if (message == null) {
      return "";
    }
    String text = message.lines().findFirst().orElse("").strip();
    text = ARGUMENT.matcher(text).replaceAll("");
    Matcher property = PROPERTY.matcher(text);
    if (property.find()) {
      text = property.group(1) + ": " + text.substring(property.end());
    }
    return text.strip();
  }
}
