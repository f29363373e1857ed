package dev.rota.api.secrets;

import dev.rota.api.JsonBodies;
import dev.rota.api.auth.NamespaceScope;
import dev.rota.api.auth.RequiresRole;
import dev.rota.api.auth.Role;
import dev.rota.api.problem.ProblemAnswers;
import dev.rota.api.problem.Problems;
import dev.rota.store.SecretBox;
import dev.rota.store.SecretRepository;
import dev.rota.store.SecretRow;
import dev.rota.store.Sql;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Put;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.http.annotation.Status;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /v1/secrets}: values a VM refers to by name, stored sealed under the operator's key and
 * written only: no answer, log or workflow ever holds one.
 */
@ProblemAnswers.Guarded
@Tag(name = "Secrets", description = "Values VMs refer to by name; written, never read back")
@Controller("/v1/secrets")
@ExecuteOn(TaskExecutors.BLOCKING)
public class SecretController {
  private static final Logger log = LoggerFactory.getLogger(SecretController.class);

  private final SecretRepository secrets;
  private final SecretBox box;
  private final JsonBodies bodies;
  private final Clock clock;
  private final dev.rota.api.namespaces.NamespaceUse namespaceUse;

  public SecretController(
      SecretRepository secrets,
      SecretBox box,
      JsonBodies bodies,
      Clock clock,
      dev.rota.api.namespaces.NamespaceUse namespaceUse) {
    this.namespaceUse = namespaceUse;
    this.secrets = secrets;
    this.box = box;
    this.bodies = bodies;
    this.clock = clock;
  }

  /** 201 with its name and times. */
  @RequiresRole(Role.SECRETS_WRITE)
  @NamespaceScope(NamespaceScope.From.BODY)
  @Post
  @Status(HttpStatus.CREATED)
  @RequestBody(
      required = true,
      content = @Content(schema = @Schema(implementation = SecretRequest.class)))
  @Operation(operationId = "createSecret", summary = "Create a secret")
  @ProblemAnswers.Invalid
  @ProblemAnswers.Conflicting
  public SecretView create(@Body @Nullable String body) {
    SecretRequest request = bodies.read(body, SecretRequest.class);
    Instant now = clock.instant();
    String namespace = dev.rota.control.NamespaceQuotas.orDefault(request.namespace());
    namespaceUse.check(namespace, "namespace", Role.SECRETS_WRITE);
    SecretRow row =
        new SecretRow(request.name(), sealed(request.name(), request.value()), now, now, namespace);
    try {
      secrets.save(row);
    } catch (RuntimeException e) {
      if (Sql.isUniqueViolation(e)) {
        throw Problems.conflict(
            "secret '"
                + request.name()
                + "' already exists; PUT /v1/secrets/"
                + request.name()
                + " gives it a new value");
      }
      throw e;
    }
    log.info("secret {} created", request.name());
    return SecretView.of(row);
  }

  /** 200; VMs that start from now on get the new value, those running keep theirs. */
  @RequiresRole(Role.SECRETS_WRITE)
  @NamespaceScope(NamespaceScope.From.SECRET)
  @Put("/{name}")
  @RequestBody(
      required = true,
      content = @Content(schema = @Schema(implementation = SecretValueRequest.class)))
  @Operation(operationId = "replaceSecret", summary = "Give a secret a new value")
  @ProblemAnswers.Invalid
  @ProblemAnswers.Missing
  public SecretView replace(String name, @Body @Nullable String body) {
    SecretValueRequest request = bodies.read(body, SecretValueRequest.class);
    SecretRow row = find(name);
    Instant now = clock.instant();
    if (secrets.reseal(name, sealed(name, request.value()), now) == 0) {
      throw Problems.notFound("secret", name);
    }
    log.info("secret {} given a new value", name);
    return new SecretView(name, row.createdAt(), now, row.namespace());
  }

  @RequiresRole({Role.SECRETS_WRITE, Role.SECRETS_USE})
  @NamespaceScope(NamespaceScope.From.QUERY)
  @Get
  @Operation(operationId = "listSecrets", summary = "List secrets, by name")
  @ProblemAnswers.Invalid
  public Map<String, List<SecretView>> list(
      @QueryValue
          @Nullable
          @io.swagger.v3.oas.annotations.media.Schema(
              pattern = dev.rota.api.Names.DNS_LABEL,
              description = "only those of this namespace")
          String namespace) {
    String only = dev.rota.api.namespaces.NamespaceUse.filter(namespace);
    return Map.of(
        "items",
        secrets.listOrderByName().stream()
            .filter(s -> only == null || only.equals(s.namespace()))
            .map(SecretView::of)
            .toList());
  }

  @RequiresRole({Role.SECRETS_WRITE, Role.SECRETS_USE})
  @NamespaceScope(NamespaceScope.From.SECRET)
  @Get("/{name}")
  @Operation(operationId = "getSecret", summary = "Get a secret's name and times")
  @ProblemAnswers.Missing
  public SecretView get(String name) {
    return SecretView.of(find(name));
  }

  /** 204; a VM that refers to it fails its next start, saying so. */
  @RequiresRole(Role.SECRETS_WRITE)
  @NamespaceScope(NamespaceScope.From.SECRET)
  @Delete("/{name}")
  @Status(HttpStatus.NO_CONTENT)
  @Operation(operationId = "deleteSecret", summary = "Delete a secret")
  @ProblemAnswers.Missing
  public void delete(String name) {
    find(name);
    secrets.deleteById(name);
    log.info("secret {} deleted", name);
  }

  private SecretRow find(String name) {
    return secrets.findById(name).orElseThrow(() -> Problems.notFound("secret", name));
  }

  private String sealed(String name, String value) {
    if (box.unavailable() != null) {
      throw Problems.conflict(box.unavailable());
    }
    return box.seal(name, value);
  }
}
