package dev.rota.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code rota apply -f FILE}: makes the cluster hold what the file describes, as {@code kubectl
 * apply} does. A VM or VM set that is missing is created; one that already is as described is left
 * alone, so applying twice changes nothing; a VM set that differs gets the file's spec. A VM's spec
 * does not change in place (as a pod's does not): one that differs is refused, naming the fields.
 */
@Command(
    name = "apply",
    description =
        "Create or update what a file describes (a VM, a VM set, or a list of them:"
            + " {\"items\": [...]}) as 'get -o yaml' and 'list -o yaml' print them. What is"
            + " already as described is left alone.")
final class ApplyCommand implements Callable<Integer> {
  /** What a user writes of a VM; the rest of what the API shows is the server's. */
  static final List<String> VM_FIELDS =
      List.of(
          "name",
          "runtime",
          "image",
          "command",
          "env",
          "resources",
          "labels",
          "constraints",
          "workerPool",
          "tolerations",
          "affinities",
          "restartPolicy",
          "priority",
          "maxRestarts",
          "restartWindow",
          "ttlAfterFinished",
          "maxRunDuration",
          "onExpiry",
          "disk",
          "guest",
          "disconnect",
          "ports");

  static final List<String> SET_FIELDS =
      List.of("name", "replicas", "template", "spread", "maxUnavailable", "update");

  @ParentCommand RotaCli root;

  @Option(
      names = {"-f", "--filename"},
      required = true,
      paramLabel = "FILE",
      description = "a JSON or YAML file; - reads stdin")
  String file;

  @Option(
      names = "--dry-run",
      description =
          "say what would change and where new VMs would go, changing nothing (the API's"
              + " ?dryRun=true)")
  boolean dryRun;

  @Override
  public Integer call() {
    JsonNode doc = VmSpecOptions.readFile(file, root.json, System.in);
    List<JsonNode> items = new ArrayList<>();
    if (doc != null && doc.path("items").isArray()) {
      doc.get("items").forEach(items::add);
    } else if (doc != null) {
      items.add(doc);
    }
    if (items.isEmpty()) {
      throw new CliException(ExitCodes.USAGE, file + " describes nothing to apply");
    }
    ApiClient api = root.api();
    for (JsonNode item : items) {
      apply(api, item);
    }
    return ExitCodes.OK;
  }

  private void apply(ApiClient api, JsonNode item) {
    if (!item.isObject() || !item.path("name").isTextual()) {
      throw new CliException(
          ExitCodes.USAGE, file + ": each VM or VM set to apply needs a name: " + item);
    }
    boolean set = item.has("template") || item.has("replicas");
    String kind = set ? "vm-set" : "vm";
    String name = item.get("name").asText();
    String collection = set ? "/v1/vm-sets" : "/v1/vms";
    String path = collection + "/" + ApiClient.segment(name);
    JsonNode current = api.getIfPresent(path);
    if (current == null) {
      if (dryRun) {
        shown(api.post(collection + DRY_RUN, item));
        return;
      }
      api.post(collection, item);
      root.output().say(kind + " " + name + " created");
      return;
    }
    if (set && item.hasNonNull("fromTemplate")) {
      madeOfATemplate(api, path, name, item, current);
      return;
    }
    List<String> differ = differences(item, current, set ? SET_FIELDS : VM_FIELDS);
    if (differ.isEmpty()) {
      root.output().say(kind + " " + name + " unchanged");
    } else if (set && dryRun) {
      shown(api.put(path + DRY_RUN, item));
    } else if (set) {
      api.put(path, item);
      root.output().say(kind + " " + name + " configured (" + String.join(", ", differ) + ")");
    } else {
      throw new CliException(
          ExitCodes.CONFLICT,
          "vm "
              + name
              + " exists, and the file changes its "
              + String.join(", ", differ)
              + ": a VM's spec does not change in place; delete it and apply again, or run it in a"
              + " VM set, whose template can change");
    }
  }

  private static final String DRY_RUN = "?dryRun=true";

  /**
   * A set made of a VM template: the server expands the template as it is now, so only its answer
   * tells whether the set's spec changed (its template version grows when it does).
   */
  private void madeOfATemplate(
      ApiClient api, String path, String name, JsonNode item, JsonNode current) {
    if (dryRun) {
      shown(api.put(path + DRY_RUN, item));
      return;
    }
    JsonNode after = api.put(path, item);
    List<String> differ = differences(item, current, SET_FIELDS);
    if (after.path("version").asInt() != current.path("version").asInt()) {
      differ.add("template, from " + item.get("fromTemplate").asText());
    }
    root.output()
        .say(
            "vm-set "
                + name
                + (differ.isEmpty()
                    ? " unchanged"
                    : " configured (" + String.join(", ", differ) + ")"));
  }

  /** A dry run's answer: as lines for people, whole for scripts. */
  private void shown(JsonNode plan) {
    if (root.output().isTable()) {
      PlanText.of(plan).forEach(root.output()::say);
    } else {
      root.output().value(plan);
    }
  }

  /**
   * The fields the file gives that differ from what the server holds; absent and null: not given.
   */
  static List<String> differences(JsonNode wanted, JsonNode current, List<String> fields) {
    List<String> differ = new ArrayList<>();
    for (String field : fields) {
      JsonNode value = wanted.get(field);
      if (value != null && !value.isNull() && !contains(current.get(field), value, field)) {
        differ.add(field);
      }
    }
    return differ;
  }

  /**
   * Whether {@code held} is {@code wanted}: an object holds every field {@code wanted} gives (what
   * it leaves out is the server's default), a list the same items, a value the same, a memory
   * written with a unit the same MiB.
   */
  private static boolean contains(JsonNode held, JsonNode wanted, String field) {
    if (held == null || held.isNull()) {
      return false;
    }
    if (wanted.isObject()) {
      if (!held.isObject()) {
        return false;
      }
      for (Map.Entry<String, JsonNode> e : (Iterable<Map.Entry<String, JsonNode>>) wanted::fields) {
        if (!e.getValue().isNull() && !contains(held.get(e.getKey()), e.getValue(), e.getKey())) {
          return false;
        }
      }
      return true;
    }
    if (wanted.isArray()) {
      if (!held.isArray() || held.size() != wanted.size()) {
        return false;
      }
      for (int i = 0; i < wanted.size(); i++) {
        if (!contains(held.get(i), wanted.get(i), field)) {
          return false;
        }
      }
      return true;
    }
    if (field.equals("memory") && wanted.isTextual()) {
      return held.asText().equals(Long.toString(mebibytes(wanted.asText())));
    }
    return held.asText().equals(wanted.asText());
  }

  /** {@code 512}, {@code 512Mi}, {@code 2Gi}, {@code 1Ti} in MiB; -1 for anything else. */
  private static long mebibytes(String text) {
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("^([0-9]{1,15})(Mi|Gi|Ti)?$").matcher(text);
    if (!m.matches()) {
      return -1;
    }
    long n = Long.parseLong(m.group(1));
    return m.group(2) == null || m.group(2).equals("Mi")
        ? n
        : m.group(2).equals("Gi") ? n * 1024 : n * 1024 * 1024;
  }
}
