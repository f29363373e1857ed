package dev.rota.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code rota namespace ...}: where VMs, sets, templates and secrets live, and each one's quota
 * beside what its VMs hold against it.
 */
@Command(
    name = "namespace",
    description = "Create, list, show and delete namespaces; set their quotas.")
final class NamespaceCommands extends Noun {
  static final List<Output.Column> COLUMNS =
      List.of(
          Output.Column.field("NAME", "name"),
          new Output.Column("CPU", n -> held(n, "cpu", "")),
          new Output.Column("MEMORY", n -> held(n, "memory", "Mi")),
          new Output.Column("VMS", n -> held(n, "vms", "")),
          new Output.Column("DISK", n -> held(n, "disk", "Gi")),
          Output.Column.field("DESCRIPTION", "description"));

  /** What is held of a resource, and of how much: {@code 6/8}, or {@code 6} without a limit. */
  static String held(JsonNode namespace, String resource, String unit) {
    String used = namespace.path("used").path(resource).asText("0") + unit;
    JsonNode limit = namespace.path("quota").path(resource);
    return limit.isMissingNode() || limit.isNull() ? used : used + "/" + limit.asText() + unit;
  }

  static String path(String name) {
    return "/v1/namespaces/" + ApiClient.segment(name);
  }

  @Command(
      name = "set",
      description =
          "Create a namespace, or give it a new quota (limits left out are none):"
              + " rota namespace set ci --cpu 16 --memory 32Gi --vms 20")
  int set(
      @Parameters(paramLabel = "NAME") String name,
      @Option(names = "--description", paramLabel = "TEXT", description = "what it is for")
          String description,
      @Option(names = "--cpu", paramLabel = "N", description = "cores its VMs may hold") Long cpu,
      @Option(
              names = "--memory",
              paramLabel = "MEMORY",
              description = "memory its VMs may hold: MiB, or 16Gi")
          String memory,
      @Option(names = "--vms", paramLabel = "N", description = "how many VMs it may hold") Long vms,
      @Option(names = "--disk", paramLabel = "GIB", description = "GiB of root disks it may hold")
          Long disk) {
    Map<String, Object> quota = new LinkedHashMap<>();
    quota.put("cpu", cpu);
    quota.put("memory", memory);
    quota.put("vms", vms);
    quota.put("disk", disk);
    quota.values().removeIf(v -> v == null);
    Map<String, Object> body = new LinkedHashMap<>();
    if (description != null) {
      body.put("description", description);
    }
    body.put("quota", quota);
    return shown(root.api().put(path(name), body), COLUMNS);
  }

  @Command(name = "list", description = "List namespaces, with what each holds of its quota.")
  int list() {
    return listedIn("namespaces", "/v1/namespaces", null, COLUMNS);
  }

  @Command(name = "get", description = "Show a namespace: its quota and what its VMs hold.")
  int get(@Parameters(paramLabel = "NAME") String name) {
    return shown(root.api().get(path(name)), COLUMNS);
  }

  @Command(name = "delete", description = "Delete a namespace that holds nothing.")
  int delete(@Parameters(paramLabel = "NAME") String name) {
    root.api().delete(path(name));
    root.output().say("namespace " + name + " deleted");
    return ExitCodes.OK;
  }
}
