package dev.rota.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code rota volume ...}: data volumes, blank disks that outlive the VMs mounting them. */
@Command(name = "volume", description = "Create, list, show and delete data volumes.")
final class VolumeCommands extends Noun {
  static final List<Output.Column> COLUMNS =
      List.of(
          Output.Column.field("NAME", "name"),
          Output.Column.field("SIZE-GI", "sizeGi"),
          Output.Column.field("WORKER", "worker"),
          Output.Column.field("VM", "vm"),
          Output.Column.field("CREATED", "createdAt"));

  static String path(String name) {
    return "/v1/volumes/" + ApiClient.segment(name);
  }

  @Command(
      name = "create",
      description =
          "Create a blank volume; a VM mounts it with --volume NAME[:PATH] and is placed where it is.")
  int create(
      @Parameters(paramLabel = "NAME") String name,
      @Option(names = "--size", paramLabel = "GI", required = true, description = "its size in GiB")
          int sizeGi,
      @Option(
              names = "--worker",
              paramLabel = "WORKER",
              description = "the worker it is made on (default: that of the first VM mounting it)")
          String worker) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("name", name);
    body.put("sizeGi", sizeGi);
    if (worker != null) {
      body.put("worker", worker);
    }
    return shown(root.api().post("/v1/volumes", body), COLUMNS);
  }

  @Command(name = "list", description = "List volumes by name, with where each is and its VM.")
  int list() {
    List<JsonNode> items = new ArrayList<>();
    root.api().get("/v1/volumes").path("items").forEach(items::add);
    root.output().list("volumes", items, COLUMNS);
    return ExitCodes.OK;
  }

  @Command(name = "get", description = "Show a volume.")
  int get(@Parameters(paramLabel = "NAME") String name) {
    return shown(root.api().get(path(name)), COLUMNS);
  }

  @Command(
      name = "delete",
      description = "Delete a volume and its data; refused while a VM mounts it.")
  int delete(@Parameters(paramLabel = "NAME") String name) {
    root.api().delete(path(name));
    root.output().say("volume " + name + " deleted");
    return ExitCodes.OK;
  }
}
