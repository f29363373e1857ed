package dev.rota.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code rota vm describe}: one VM as a person reads it, kubectl's way: its state and why, what it
 * runs and asks for, its times, and its last events.
 */
final class Description {
  /** How many of its newest events are shown. */
  static final int EVENTS = 10;

  private Description() {}

  static List<String> of(JsonNode vm, List<JsonNode> events) {
    List<String> lines = new ArrayList<>();
    String status = text(vm, "status");
    String worker = text(vm, "worker");
    line(lines, "Name", text(vm, "name"));
    line(
        lines,
        "Status",
        status
            + (worker.equals("-") ? "" : " on " + worker)
            + ", restart "
            + vm.path("restartCount").asInt());
    line(lines, status.equals("pending") ? "Waiting" : "Message", text(vm, "statusMessage"));
    if (vm.path("restartAt").isTextual()) {
      line(lines, "Restart at", text(vm, "restartAt"));
    }
    if (!vm.path("movingFrom").isNull() && !vm.path("movingFrom").isMissingNode()) {
      line(lines, "Moving from", text(vm, "movingFrom"));
    }
    line(lines, "Set", text(vm, "set"));
    line(lines, "Runtime", text(vm, "runtime"));
    line(lines, "Priority", text(vm, "priority"));
    line(lines, "Image", text(vm, "image"));
    line(lines, "Command", ShellWords.of(vm.path("command")));
    line(lines, "Resources", pairs(vm.path("resources")));
    line(lines, "Labels", pairs(vm.path("labels")));
    if (vm.path("workerPool").isTextual() && !"default".equals(vm.path("workerPool").asText())) {
      line(lines, "Worker pool", text(vm, "workerPool"));
    }
    if (vm.path("constraints").size() > 0) {
      List<String> rules = new ArrayList<>();
      vm.path("constraints").forEach(c -> rules.add(rule(c)));
      line(lines, "Constraints", String.join("; ", rules));
    }
    if (vm.path("affinities").size() > 0) {
      List<String> preferred = new ArrayList<>();
      vm.path("affinities").forEach(a -> preferred.add(a.path("weight").asInt() + " " + rule(a)));
      line(lines, "Affinities", String.join("; ", preferred));
    }
    if (vm.path("tolerations").size() > 0) {
      List<String> tolerated = new ArrayList<>();
      vm.path("tolerations")
          .forEach(
              t ->
                  tolerated.add(
                      new dev.rota.agentapi.Toleration(
                              t.path("key").asText(null),
                              t.path("operator").asText(null),
                              t.path("value").asText(null),
                              t.path("effect").asText(null))
                          .toString()));
      line(lines, "Tolerations", String.join(", ", tolerated));
    }
    line(lines, "Env", pairs(vm.path("env")));
    if (vm.path("ports").size() > 0) {
      line(lines, "Ports", ports(vm));
    }
    String policy = text(vm, "restartPolicy");
    if (vm.path("maxRestarts").isInt()) {
      policy +=
          ", at most "
              + vm.path("maxRestarts").asInt()
              + " after failures within "
              + text(vm, "restartWindow");
    }
    line(lines, "Restart policy", policy);
    if (vm.path("ttlAfterFinished").isTextual()) {
      line(lines, "Deleted after", text(vm, "ttlAfterFinished") + " finished (ttlAfterFinished)");
    }
    if (vm.path("disk").isObject()) {
      JsonNode disk = vm.path("disk");
      line(
          lines,
          "Disk",
          (disk.path("persistent").asBoolean() ? "persistent" : "ephemeral")
              + (disk.path("sizeGi").isInt() ? ", " + disk.path("sizeGi").asInt() + " GiB" : "")
              + (vm.path("diskOn").isTextual() ? ", on " + text(vm, "diskOn") : ""));
    }
    if ("live".equals(vm.path("migration").asText())) {
      line(lines, "Migration", "live: a drain moves it while it runs, memory and disk");
    }
    if (vm.path("volumes").isArray() && !vm.path("volumes").isEmpty()) {
      List<String> mounts = new java.util.ArrayList<>();
      vm.path("volumes")
          .forEach(
              v ->
                  mounts.add(
                      v.path("name").asText()
                          + (v.path("mountPath").isTextual()
                              ? " at " + v.path("mountPath").asText()
                              : "")));
      line(lines, "Volumes", String.join(", ", mounts));
    }
    if (vm.path("maxRunDuration").isTextual()) {
      line(
          lines,
          "Lease",
          text(vm, "maxRunDuration")
              + ", then "
              + text(vm, "onExpiry")
              + (vm.path("leaseExpiresAt").isTextual()
                  ? "; runs out at " + text(vm, "leaseExpiresAt")
                  : ""));
    }
    line(lines, "Created", text(vm, "createdAt"));
    line(lines, "Scheduled", text(vm, "scheduledAt"));
    line(lines, "Started", text(vm, "startedAt"));
    line(lines, "Finished", text(vm, "finishedAt"));
    line(lines, "Exit code", text(vm, "exitCode"));
    if (vm.path("workflowUrl").isTextual()) {
      // Where its life is told step by step: the Temporal UI.
      line(lines, "Workflow", text(vm, "workflowUrl"));
    }
    lines.add("Events:");
    List<JsonNode> newest = events.subList(Math.max(0, events.size() - EVENTS), events.size());
    if (newest.isEmpty()) {
      lines.add("  (none)");
    }
    for (JsonNode e : newest) {
      lines.add("  " + text(e, "time") + "  " + text(e, "type") + "  " + text(e, "message"));
    }
    return lines;
  }

  /**
   * Each named port, and where it is reached while the VM runs: {@code ssh 22 -> 10.0.0.5:20001}.
   */
  /** A constraint's or an affinity's rule as {@code --constraint} takes it: {@code zone in a,b}. */
  private static String rule(JsonNode c) {
    List<String> values = new ArrayList<>();
    c.path("values").forEach(v -> values.add(v.asText()));
    return (text(c, "label") + " " + text(c, "operator") + " " + String.join(",", values)).strip();
  }

  private static String ports(JsonNode vm) {
    List<String> shown = new java.util.ArrayList<>();
    for (JsonNode p : vm.path("ports")) {
      String name = p.path("name").asText();
      String at = null;
      for (JsonNode e : vm.path("endpoints")) {
        if (e.path("name").asText().equals(name)) {
          at = e.path("address").asText();
        }
      }
      shown.add(name + " " + p.path("port").asText() + (at == null ? "" : " -> " + at));
    }
    return String.join(", ", shown);
  }

  private static void line(List<String> lines, String label, String value) {
    lines.add(String.format("%-16s%s", label + ":", value));
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.path(field);
    return value.isMissingNode() || value.isNull() || value.asText().isEmpty()
        ? "-"
        : value.asText();
  }

  private static String pairs(JsonNode map) {
    List<String> pairs = new ArrayList<>();
    for (Map.Entry<String, JsonNode> e : (Iterable<Map.Entry<String, JsonNode>>) map::fields) {
      pairs.add(e.getKey() + "=" + e.getValue().asText());
    }
    return pairs.isEmpty() ? "-" : String.join(" ", pairs);
  }
}
