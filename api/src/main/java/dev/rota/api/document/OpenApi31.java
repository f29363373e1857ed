package dev.rota.api.document;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns the generated OpenAPI 3.0 document into 3.1, whose schemas are JSON Schema (2020-12): the
 * overlay's rules need {@code propertyNames} and {@code contains}, which 3.0's schema dialect
 * lacks. Micronaut's own 3.1 output is not used: it marks maps and optional fields with the wrong
 * types. The one difference the generated schemas use is {@code nullable}, which becomes a {@code
 * "null"} type.
 */
final class OpenApi31 {
  private OpenApi31() {}

  static Map<String, Object> from30(Map<String, Object> document) {
    @SuppressWarnings("unchecked")
    Map<String, Object> converted = (Map<String, Object>) convert(document);
    converted.put("openapi", "3.1.0");
    return converted;
  }

  @SuppressWarnings("unchecked")
  private static Object convert(Object node) {
    if (node instanceof List<?> list) {
      List<Object> out = new ArrayList<>(list.size());
      list.forEach(item -> out.add(convert(item)));
      return out;
    }
    if (!(node instanceof Map<?, ?> map)) {
      return node;
    }
    Map<String, Object> out = new LinkedHashMap<>();
    ((Map<String, Object>) map).forEach((k, v) -> out.put(k, convert(v)));
    Object nullable = out.remove("nullable");
    if (!Boolean.TRUE.equals(nullable)) {
      return out;
    }
    Object type = out.get("type");
    if (type instanceof String t) {
      out.put("type", List.of(t, "null"));
      return out;
    }
    // A reference or a composition: null, or what it says.
    Map<String, Object> either = new LinkedHashMap<>();
    if (out.containsKey("description")) {
      either.put("description", out.remove("description"));
    }
    either.put("anyOf", List.of(out, Map.of("type", "null")));
    return either;
  }
}
