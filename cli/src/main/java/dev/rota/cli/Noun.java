package dev.rota.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * A noun ({@code rota vm}): its verbs are its {@code @Command} methods and classes. Given without a
 * verb it is a usage error naming the verbs it has.
 */
abstract class Noun implements Runnable {
  @Spec CommandSpec spec;
  @ParentCommand RotaCli root;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(
        spec.commandLine(), "a verb is needed: " + String.join(", ", spec.subcommands().keySet()));
  }

  /** Every item of a paged list as a table (or whole). */
  int listed(
      String what,
      String path,
      Map<String, String> query,
      Integer limit,
      List<Output.Column> columns) {
    return listed(what, path, query, limit, Selector.ANY, columns);
  }

  /** {@link #listed}, of the items {@code selector} matches (chosen by the server). */
  int listed(
      String what,
      String path,
      Map<String, String> query,
      Integer limit,
      Selector selector,
      List<Output.Column> columns) {
    Map<String, String> selected = new java.util.LinkedHashMap<>(query);
    if (!selector.isAny()) {
      selected.put("labelSelector", selector.asQuery());
    }
    root.output().list(what, root.api().list(path, selected, limit), columns);
    return ExitCodes.OK;
  }

  /** The time of day a watch's row is shown at, in UTC as the API's times are. */
  private String now() {
    return java.time.format.DateTimeFormatter.ofPattern("HH:mm:ss")
        .withZone(java.time.ZoneOffset.UTC)
        .format(root.clock.instant());
  }

  /**
   * A watch: the current list, then a row per change (its event first) as the server streams them,
   * for as long as it runs; a stream that ends or breaks is resumed from its last resourceVersion,
   * and one the server no longer keeps (410) is listed again.
   */
  int watched(String path, List<Output.Column> columns) {
    String[] resourceVersion = {null};
    int[][] widths = {null};
    while (true) {
      List<JsonNode> snapshot = new java.util.ArrayList<>();
      try {
        root.api().stream(
            path
                + "?watch=true"
                + (resourceVersion[0] == null ? "" : "&resourceVersion=" + resourceVersion[0]),
            line -> {
              resourceVersion[0] = line.path("resourceVersion").asText(resourceVersion[0]);
              switch (line.path("type").asText()) {
                case "snapshot" -> snapshot.add(line.path("object"));
                case "synced" -> {
                  if (root.output().isTable()) {
                    widths[0] =
                        root.output()
                            .watchSnapshot(
                                path.substring(path.lastIndexOf('/') + 1),
                                snapshot,
                                columns,
                                now());
                  } else {
                    snapshot.forEach(
                        o ->
                            root.output()
                                .watched(
                                    root.json
                                        .createObjectNode()
                                        .put("type", "snapshot")
                                        .put("resourceVersion", resourceVersion[0])
                                        .set("object", o),
                                    columns,
                                    now(),
                                    null));
                  }
                }
                case "upsert", "delete" -> root.output().watched(line, columns, now(), widths[0]);
                default -> {} // a bookmark: only its resourceVersion matters
              }
            });
      } catch (CliException e) {
        if (e.getMessage().startsWith("410:")) {
          root.err.println("rota: the server no longer keeps changes from there; listing again");
          root.err.flush();
          resourceVersion[0] = null;
        } else if (e.exitCode() != ExitCodes.UNREACHABLE) {
          throw e;
        } else {
          pause();
        }
      }
    }
  }

  private void pause() {
    try {
      root.pause.sleep(1000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException(ExitCodes.FAILED, "interrupted");
    }
  }

  /**
   * Every {@code kind} at {@code path} (an unpaged list, {@code {"items": [...]}}), of {@code
   * namespace} only unless null, as a table.
   */
  int listedIn(String kind, String path, String namespace, List<Output.Column> columns) {
    List<JsonNode> items = new java.util.ArrayList<>();
    root.api()
        .get(path + ApiClient.query(java.util.Collections.singletonMap("namespace", namespace)))
        .path("items")
        .forEach(items::add);
    root.output().list(kind, items, columns);
    return ExitCodes.OK;
  }

  /** One resource as a one-row table (or whole). */
  int shown(JsonNode resource, List<Output.Column> columns) {
    root.output().one(resource, columns);
    return ExitCodes.OK;
  }
}
