package dev.rota.api;

import dev.rota.api.problem.BodyShapes;
import dev.rota.api.problem.Problems;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.type.Argument;
import io.micronaut.serde.ObjectMapper;
import jakarta.inject.Singleton;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validator;
import java.io.IOException;
import java.util.Comparator;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Reads request bodies in one place, so that every rejection names its field: parse as plain JSON,
 * check each field's kind against the request record, bind, then validate.
 */
@Singleton
public class JsonBodies {
  private final ObjectMapper json;
  private final Validator validator;

  public JsonBodies(ObjectMapper json, Validator validator) {
    this.json = json;
    this.validator = validator;
  }

  public <T> T read(@Nullable String body, Class<T> type) {
    Object sent = parse(body);
    Map<String, Object> parsed = object(WholeNumbers.normalize(sent));
    // Bound from the text as sent, unless it wrote a whole number as 5.0: then from the tree, where
    // it is 5.
    return bind(parsed == sent ? body : text(parsed, "body"), parsed, type, "");
  }

  /**
   * A part of a body already read (a set's {@code template}) bound to {@code type}, each rejection
   * naming its field under {@code field}: {@code template.command}.
   */
  public <T> T readPart(String field, Object part, Class<T> type) {
    if (!(part instanceof Map<?, ?>)) {
      throw Problems.badRequest(field, "must be a JSON object");
    }
    return bind(text(part, field), part, type, field + ".");
  }

  private String text(Object tree, String field) {
    try {
      return json.writeValueAsString(tree);
    } catch (IOException e) {
      throw Problems.badRequest(field, firstLine(e.getMessage()));
    }
  }

  private <T> T bind(String body, Object parsed, Class<T> type, String prefix) {
    BodyShapes.explain(type, parsed)
        .ifPresent(
            problem -> {
              throw Problems.badRequest(prefix + problem);
            });
    T value;
    try {
      value = json.readValue(body, type);
    } catch (IOException e) {
      throw Problems.badRequest((prefix.isEmpty() ? "body: " : prefix) + firstLine(e.getMessage()));
    }
    Set<ConstraintViolation<T>> violations = validator.validate(value);
    if (!violations.isEmpty()) {
      throw Problems.badRequest(
          violations.stream()
              .sorted(Comparator.comparing(v -> v.getPropertyPath().toString()))
              .map(v -> prefix + field(v.getPropertyPath().toString()) + ": " + v.getMessage())
              .collect(Collectors.joining("; ")));
    }
    return value;
  }

  /** A body that must be a JSON object, read as one, its whole numbers as integers (5.0 is 5). */
  public Map<String, Object> readObject(@Nullable String body) {
    return object(WholeNumbers.normalize(parse(body)));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> object(Object parsed) {
    if (!(parsed instanceof Map<?, ?>)) {
      throw Problems.badRequest("body: must be a JSON object");
    }
    return (Map<String, Object>) parsed;
  }

  private Object parse(@Nullable String body) {
    if (body == null || body.isBlank()) {
      throw Problems.badRequest("body: is required, a JSON object");
    }
    try {
      return json.readValue(body, Argument.OBJECT_ARGUMENT);
    } catch (IOException e) {
      throw Problems.badRequest("body: is not valid JSON (" + firstLine(e.getMessage()) + ")");
    }
  }

  /** {@code resources[cpu].<map value>} as a user would write it: {@code resources.cpu}. */
  static String field(String path) {
    return path.replace(".<map value>", "")
        .replace(".<list element>", "")
        .replace("<list element>", "")
        .replace("<map key>", "(key)")
        .replaceAll("\\[([^\\]]*)\\]", ".$1");
  }

  private static String firstLine(String message) {
    return message == null ? "" : message.lines().findFirst().orElse("").strip();
  }
}
