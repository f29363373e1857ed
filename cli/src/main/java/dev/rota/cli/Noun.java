package dev.rota.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * A noun ({@code rota vm}): its verbs are its {@code @Command} methods and classes. Given without a verb
 * it is a usage error naming the verbs it has.
 */
abstract class Noun implements Runnable {
  @Spec CommandSpec spec;
  @ParentCommand RotaCli root;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(),
        "a verb is needed: " + String.join(", ", spec.subcommands().keySet()));
  }

  /** Every item of a paged list as a table (or whole). */
  int listed(String what, String path, Map<String, String> query, Integer limit, List<Output.Column> columns) {
    root.output().list(what, root.api().list(path, query, limit), columns);
    return ExitCodes.OK;
  }

  /** One resource as a one-row table (or whole). */
  int shown(JsonNode resource, List<Output.Column> columns) {
    root.output().one(resource, columns);
    return ExitCodes.OK;
  }
}
