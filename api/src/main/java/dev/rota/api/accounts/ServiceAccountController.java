package dev.rota.api.accounts;

import dev.rota.api.JsonBodies;
import dev.rota.api.auth.RequiresRole;
import dev.rota.api.auth.Role;
import dev.rota.api.auth.TokenAccounts;
import dev.rota.api.auth.Tokens;
import dev.rota.api.namespaces.NamespaceUse;
import dev.rota.api.problem.ProblemAnswers;
import dev.rota.api.problem.Problems;
import dev.rota.store.ServiceAccountRepository;
import dev.rota.store.ServiceAccountRow;
import dev.rota.store.Sql;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Status;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** {@code /v1/service-accounts}: who may call the API, with which roles. */
@ProblemAnswers.Guarded
@Tag(name = "Service accounts", description = "Who may call the API, and with which roles")
@Controller("/v1/service-accounts")
@ExecuteOn(TaskExecutors.BLOCKING)
public class ServiceAccountController {
  private final ServiceAccountRepository accounts;
  private final JsonBodies bodies;
  private final Clock clock;
  private final TokenAccounts tokens;
  private final NamespaceUse namespaceUse;

  public ServiceAccountController(
      ServiceAccountRepository accounts,
      JsonBodies bodies,
      Clock clock,
      TokenAccounts tokens,
      NamespaceUse namespaceUse) {
    this.namespaceUse = namespaceUse;
    this.accounts = accounts;
    this.bodies = bodies;
    this.clock = clock;
    this.tokens = tokens;
  }

  /** 201 with the token, shown this once. */
  @RequiresRole(Role.ADMIN_WRITE)
  @Post
  @Status(HttpStatus.CREATED)
  @RequestBody(
      required = true,
      content = @Content(schema = @Schema(implementation = ServiceAccountRequest.class)))
  @Operation(operationId = "createServiceAccount", summary = "Create a service account")
  @ProblemAnswers.Invalid
  @ProblemAnswers.Conflicting
  public ServiceAccountView create(@Body @Nullable String body) {
    ServiceAccountRequest request = bodies.read(body, ServiceAccountRequest.class);
    List<String> roles = distinct(request.roles()); // each a role: ServiceAccountRequest.ROLE
    Map<String, List<String>> namespaceRoles = new TreeMap<>();
    request
        .namespaceRoles()
        .forEach(
            (namespace, held) -> {
              namespaceUse.exists(namespace, "namespaceRoles." + namespace);
              namespaceRoles.put(namespace, distinct(held));
            });
    if (roles.isEmpty() && namespaceRoles.isEmpty()) {
      throw Problems.badRequest("roles", "must hold at least one role, here or in namespaceRoles");
    }
    boolean worker = roles.contains(Role.WORKER.wireName());
    if (worker && request.worker() == null) {
      throw Problems.badRequest(
          "worker", "is required with the worker role: the one worker this token may act for");
    }
    if (!worker && request.worker() != null) {
      throw Problems.badRequest("worker", "goes with the worker role only");
    }
    String token = Tokens.generate();
    ServiceAccountRow row =
        new ServiceAccountRow(
            request.name(),
            Tokens.hash(token),
            roles,
            namespaceRoles,
            request.worker(),
            clock.instant());
    try {
      accounts.save(row);
    } catch (RuntimeException e) {
      if (Sql.isUniqueViolation(e)) {
        throw Problems.conflict("service account '" + request.name() + "' already exists");
      }
      throw e;
    }
    return ServiceAccountView.of(row, token);
  }

  private static List<String> distinct(List<String> roles) {
    return roles.stream().distinct().toList();
  }

  @RequiresRole(Role.ADMIN_READ)
  @Get
  @Operation(operationId = "listServiceAccounts", summary = "List service accounts")
  public Map<String, List<ServiceAccountView>> list() {
    List<ServiceAccountView> items = new ArrayList<>();
    accounts.findAll().forEach(a -> items.add(ServiceAccountView.of(a, null)));
    items.sort(java.util.Comparator.comparing(ServiceAccountView::name));
    return Map.of("items", items);
  }

  @RequiresRole(Role.ADMIN_READ)
  @Get("/{name}")
  @Operation(operationId = "getServiceAccount", summary = "Get a service account")
  @ProblemAnswers.Missing
  public ServiceAccountView get(String name) {
    return ServiceAccountView.of(
        accounts.findById(name).orElseThrow(() -> Problems.notFound("service account", name)),
        null);
  }

  /**
   * 204; the token stops working at once on the host that deleted it, and within two seconds on the
   * others (each keeps an account it found that long).
   */
  @RequiresRole(Role.ADMIN_WRITE)
  @Delete("/{name}")
  @Status(HttpStatus.NO_CONTENT)
  @Operation(operationId = "deleteServiceAccount", summary = "Delete a service account")
  @ProblemAnswers.Missing
  public void delete(String name) {
    accounts.findById(name).orElseThrow(() -> Problems.notFound("service account", name));
    accounts.deleteById(name);
    tokens.changed();
  }
}
