package dev.rota.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/** A dry run's answer, and the differences between two templates, as lines for people. */
final class PlanText {
  private PlanText() {}

  /** The lines of a dry run's answer ({@code ?dryRun=true}). */
  static List<String> of(JsonNode plan) {
    List<String> lines = new ArrayList<>();
    String head = plan.path("kind").asText() + " " + plan.path("name").asText();
    String action = plan.path("action").asText();
    if (plan.path("set").has("version") && action.equals("update")) {
      action += " (version " + plan.path("set").path("version").asInt() + ")";
    }
    lines.add(head + ": " + action);
    for (JsonNode change : plan.path("changes")) {
      lines.add(
          "  "
              + change.path("field").asText()
              + ": "
              + change.path("from")
              + " -> "
              + change.path("to"));
    }
    JsonNode replicas = plan.path("replicas");
    if (replicas.path("replace").size() > 0) {
      lines.add("  rollout replaces " + names(replicas.path("replace")));
    }
    if (replicas.path("make").size() > 0) {
      lines.add("  makes " + names(replicas.path("make")));
    }
    if (replicas.path("remove").size() > 0) {
      lines.add("  removes " + names(replicas.path("remove")));
    }
    for (JsonNode p : plan.path("placements")) {
      lines.add(
          "  "
              + p.path("vm").asText()
              + (p.hasNonNull("worker")
                  ? " goes to worker "
                      + p.path("worker").asText()
                      + (p.hasNonNull("why") ? " (" + p.path("why").asText() + ")" : "")
                  : " waits: " + p.path("waiting").asText()));
    }
    return lines;
  }

  /** {@code field: from -> to} for each leaf of {@code from} and {@code to} that differs. */
  static List<String> differences(String prefix, JsonNode from, JsonNode to) {
    Map<String, JsonNode> a = new LinkedHashMap<>();
    Map<String, JsonNode> b = new LinkedHashMap<>();
    flatten(prefix, from, a);
    flatten(prefix, to, b);
    TreeSet<String> fields = new TreeSet<>(a.keySet());
    fields.addAll(b.keySet());
    List<String> lines = new ArrayList<>();
    for (String field : fields) {
      if (!Objects.equals(a.get(field), b.get(field))) {
        lines.add(field + ": " + shown(a.get(field)) + " -> " + shown(b.get(field)));
      }
    }
    return lines;
  }

  private static String shown(JsonNode value) {
    return value == null ? "(none)" : value.toString();
  }

  private static void flatten(String prefix, JsonNode value, Map<String, JsonNode> into) {
    if (value != null && value.isObject() && value.size() > 0) {
      for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        flatten(prefix + "." + e.getKey(), e.getValue(), into);
      }
    } else if (value != null && !value.isNull() && !value.isMissingNode()) {
      into.put(prefix, value);
    }
  }

  private static String names(JsonNode list) {
    List<String> names = new ArrayList<>();
    list.forEach(n -> names.add(n.asText()));
    return String.join(", ", names);
  }
}
