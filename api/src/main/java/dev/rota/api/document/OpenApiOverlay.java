package dev.rota.api.document;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Lays what annotations cannot say (a field required unless another has a given value, the names a
 * map's keys may take, links from a create to the calls on what it made) over the document
 * generated from the controllers. Maps merge key by key, anything else is replaced. The overlay may
 * refine the generated document but not invent any of it: a path or an operation that the
 * controllers do not have is an error, so that a renamed route cannot leave its refinements behind
 * unnoticed. New schemas (rules that several request bodies share) are allowed.
 */
final class OpenApiOverlay {
  private OpenApiOverlay() {}

  static Map<String, Object> apply(Map<String, Object> generated, Map<String, Object> overlay) {
    List<String> strays = new ArrayList<>();
    Map<String, Object> merged = merge(generated, overlay, List.of(), strays);
    if (!strays.isEmpty()) {
      throw new IllegalStateException(
          "the OpenAPI overlay refines what the controllers do not have: "
              + String.join(", ", strays));
    }
    return merged;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> merge(
      Map<String, Object> base, Map<String, Object> over, List<String> at, List<String> strays) {
    Map<String, Object> out = new LinkedHashMap<>(base);
    for (Map.Entry<String, Object> e : over.entrySet()) {
      List<String> path = new ArrayList<>(at);
      path.add(e.getKey());
      Object mine = base.get(e.getKey());
      if (mine == null && mustExist(at)) {
        strays.add(String.join(" ", path));
        continue;
      }
      if (mine instanceof Map<?, ?> m && e.getValue() instanceof Map<?, ?> o) {
        out.put(e.getKey(), merge((Map<String, Object>) m, (Map<String, Object>) o, path, strays));
      } else {
        out.put(e.getKey(), e.getValue());
      }
    }
    return out;
  }

  /** Under these, every key must be one the generated document has: paths and their operations. */
  private static boolean mustExist(List<String> at) {
    return !at.isEmpty() && at.get(0).equals("paths") && at.size() <= 2;
  }
}
