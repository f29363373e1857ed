package dev.rota.api.document;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Schema names that code generators take as they are: the generator names a generic record's schema
 * {@code Page_VmEventView_} and a nested one {@code VmBatch.Request}, which many generators turn
 * into odd or clashing types. Each becomes one word ({@code VmEventViewPage}, {@code
 * VmBatchRequest}), and every reference to it follows.
 */
final class SchemaNames {
  private static final String REF = "#/components/schemas/";
  private static final Pattern GENERIC = Pattern.compile("^([A-Za-z0-9]+)_([A-Za-z0-9]+)_$");

  private SchemaNames() {}

  /** The clean name of a generated one. */
  static String clean(String name) {
    Matcher generic = GENERIC.matcher(name);
    if (generic.matches()) {
      return generic.group(2) + generic.group(1);
    }
    return name.replaceAll("[^A-Za-z0-9]", "");
  }

  /** The document with every schema, and every reference to one, renamed to its clean name. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> apply(Map<String, Object> document) {
    Map<String, Object> components = (Map<String, Object>) document.get("components");
    if (components == null || !(components.get("schemas") instanceof Map<?, ?> schemas)) {
      return document;
    }
    Map<String, String> renamed = new LinkedHashMap<>();
    Map<String, Object> cleaned = new LinkedHashMap<>();
    ((Map<String, Object>) schemas)
        .forEach(
            (name, schema) -> {
              String clean = clean(name);
              if (cleaned.containsKey(clean)) {
                throw new IllegalStateException(
                    "schemas " + name + " and another both clean to " + clean);
              }
              cleaned.put(clean, schema);
              renamed.put(name, clean);
            });
    components.put("schemas", cleaned);
    return (Map<String, Object>) follow(document, renamed);
  }

  @SuppressWarnings("unchecked")
  private static Object follow(Object node, Map<String, String> renamed) {
    if (node instanceof Map<?, ?> map) {
      Map<String, Object> out = new LinkedHashMap<>();
      ((Map<String, Object>) map)
          .forEach(
              (key, value) ->
                  out.put(
                      key,
                      key.equals("$ref") && value instanceof String ref
                          ? reference(ref, renamed)
                          : follow(value, renamed)));
      return out;
    }
    if (node instanceof List<?> list) {
      return list.stream().map(item -> follow(item, renamed)).toList();
    }
    return node;
  }

  /** {@code #/components/schemas/Old/properties/x} names the schema {@code Old}, renamed. */
  private static String reference(String ref, Map<String, String> renamed) {
    if (!ref.startsWith(REF)) {
      return ref;
    }
    String rest = ref.substring(REF.length());
    int slash = rest.indexOf('/');
    String name = slash < 0 ? rest : rest.substring(0, slash);
    return REF + renamed.getOrDefault(name, name) + (slash < 0 ? "" : rest.substring(slash));
  }
}
