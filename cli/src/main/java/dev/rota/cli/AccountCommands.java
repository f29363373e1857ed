package dev.rota.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code rota account ...}: service accounts and their tokens. */
@Command(name = "account", description = "Create, list, inspect and delete service accounts.")
final class AccountCommands extends Noun {
  static final List<Output.Column> COLUMNS =
      List.of(
          Output.Column.field("NAME", "name"),
          Output.Column.field("ROLES", "roles"),
          Output.Column.field("NAMESPACE ROLES", "namespaceRoles"),
          Output.Column.field("WORKER", "worker"),
          Output.Column.field("CREATED", "createdAt"));

  static String path(String name) {
    return "/v1/service-accounts/" + ApiClient.segment(name);
  }

  @Command(name = "create", description = "Create an account; its token is shown this once.")
  int create(
      @Parameters(paramLabel = "NAME") String name,
      @Option(
              names = "--role",
              paramLabel = "ROLE",
              description =
                  "a role in every namespace: compute:read, compute:write, compute:connect,"
                      + " admin:read, admin:write, secrets:write, secrets:use or worker; repeatable")
          List<String> roles,
      @Option(
              names = "--namespace-role",
              paramLabel = "NAMESPACE=ROLE",
              description =
                  "a role in one namespace only: compute:read, compute:write, compute:connect,"
                      + " secrets:write or secrets:use; repeatable")
          List<String> namespaceRoles,
      @Option(
              names = "--worker",
              paramLabel = "WORKER",
              description = "with the worker role: the one worker it acts for")
          String worker) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("name", name);
    body.put("roles", roles == null ? List.of() : roles);
    if (namespaceRoles != null) {
      Map<String, List<String>> byNamespace = new LinkedHashMap<>();
      for (String given : namespaceRoles) {
        int eq = given.indexOf('=');
        if (eq <= 0 || eq == given.length() - 1) {
          throw new CliException(
              ExitCodes.USAGE, "--namespace-role takes NAMESPACE=ROLE, not " + given);
        }
        byNamespace
            .computeIfAbsent(given.substring(0, eq), n -> new ArrayList<>())
            .add(given.substring(eq + 1));
      }
      body.put("namespaceRoles", byNamespace);
    }
    if (worker != null) {
      body.put("worker", worker);
    }
    JsonNode created = root.api().post("/v1/service-accounts", body);
    Output out = root.output();
    if (root.format == Output.Format.TABLE) {
      out.one(created, COLUMNS);
      out.say("token (shown this once): " + created.path("token").asText());
    } else {
      out.value(created);
    }
    return ExitCodes.OK;
  }

  @Command(name = "list", description = "List service accounts.")
  int list() {
    List<JsonNode> items = new ArrayList<>();
    root.api().get("/v1/service-accounts").path("items").forEach(items::add);
    root.output().list("accounts", items, COLUMNS);
    return ExitCodes.OK;
  }

  @Command(name = "get", description = "Show one service account.")
  int get(@Parameters(paramLabel = "NAME") String name) {
    return shown(root.api().get(path(name)), COLUMNS);
  }

  @Command(name = "delete", description = "Delete an account; its token stops working at once.")
  int delete(@Parameters(paramLabel = "NAME") String name) {
    root.api().delete(path(name));
    root.output().say("account " + name + " deleted");
    return ExitCodes.OK;
  }
}
