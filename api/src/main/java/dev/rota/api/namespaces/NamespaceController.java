package dev.rota.api.namespaces;

import dev.rota.api.JsonBodies;
import dev.rota.api.Names;
import dev.rota.api.Quantities;
import dev.rota.api.auth.NamespaceScope;
import dev.rota.api.auth.RequiresRole;
import dev.rota.api.auth.Role;
import dev.rota.api.problem.ProblemAnswers;
import dev.rota.api.problem.Problems;
import dev.rota.core.model.Quota;
import dev.rota.store.NamespaceRepository;
import dev.rota.store.NamespaceRow;
import dev.rota.store.SecretRepository;
import dev.rota.store.Sql;
import dev.rota.store.TemplateRepository;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Put;
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
 * Namespaces: where VMs, sets, templates and secrets live, each with a quota on what its VMs hold.
 */
@Tag(name = "Namespaces", description = "Where VMs, sets, templates and secrets live; quotas")
@Controller("/v1/namespaces")
@ProblemAnswers.Guarded
@ExecuteOn(TaskExecutors.BLOCKING)
public class NamespaceController {
  private static final Logger log = LoggerFactory.getLogger(NamespaceController.class);

  private final NamespaceRepository namespaces;
  private final TemplateRepository templates;
  private final SecretRepository secrets;
  private final JsonBodies bodies;
  private final Clock clock;
  private final NamespaceDeletion deletion;
  private final dev.rota.api.auth.TokenAccounts tokens;

  public NamespaceController(
      NamespaceRepository namespaces,
      TemplateRepository templates,
      SecretRepository secrets,
      JsonBodies bodies,
      Clock clock,
      NamespaceDeletion deletion,
      dev.rota.api.auth.TokenAccounts tokens) {
    this.deletion = deletion;
    this.tokens = tokens;
    this.namespaces = namespaces;
    this.templates = templates;
    this.secrets = secrets;
    this.bodies = bodies;
    this.clock = clock;
  }

  @RequiresRole({Role.COMPUTE_READ, Role.ADMIN_READ})
  @Get
  @Operation(operationId = "listNamespaces", summary = "List namespaces, by name")
  public Map<String, List<NamespaceView>> list() {
    return Map.of("items", namespaces.listOrderByName().stream().map(NamespaceView::of).toList());
  }

  @RequiresRole({Role.COMPUTE_READ, Role.ADMIN_READ})
  @NamespaceScope(NamespaceScope.From.NAMESPACE)
  @Get("/{name}")
  @Operation(
      operationId = "getNamespace",
      summary = "Get a namespace: its quota and what its VMs hold")
  @ProblemAnswers.Missing
  public NamespaceView get(String name) {
    return NamespaceView.of(find(name));
  }

  /**
   * 200 with the namespace, made if it did not exist; its quota replaced whole. A quota below what
   * is held refuses new VMs and keeps the scheduler from starting more; it stops none.
   */
  @RequiresRole(Role.ADMIN_WRITE)
  @Put("/{name}")
  @RequestBody(
      required = true,
      content = @Content(schema = @Schema(implementation = NamespaceRequest.class)))
  @Operation(operationId = "putNamespace", summary = "Create a namespace, or set its quota")
  @ProblemAnswers.Invalid
  public NamespaceView put(
      @io.micronaut.http.annotation.PathVariable
          @Schema(pattern = Names.DNS_LABEL, description = "a DNS label: the namespace's name")
          String name,
      @Body @Nullable String body) {
    if (!name.matches(Names.DNS_LABEL)) {
      throw Problems.badRequest("name", Names.DNS_LABEL_MESSAGE);
    }
    NamespaceRequest request = bodies.read(body, NamespaceRequest.class);
    Quota quota = quota(request.quota());
    Instant now = clock.instant();
    if (describe(name, request.description(), quota, now) == 0) {
      try {
        namespaces.save(NamespaceRow.created(name, request.description(), quota, now));
        log.info("namespace {} created", name);
      } catch (RuntimeException e) {
        if (!Sql.isUniqueViolation(e)) {
          throw e;
        }
        // Made meanwhile by another call: this one's quota is the last word.
        describe(name, request.description(), quota, now);
      }
    } else {
      log.info("namespace {} given quota {}", name, quota);
    }
    return NamespaceView.of(find(name));
  }

  /** 204; only a namespace that holds nothing, and never {@code default}. */
  @RequiresRole(Role.ADMIN_WRITE)
  @Delete("/{name}")
  @Status(HttpStatus.NO_CONTENT)
  @Operation(operationId = "deleteNamespace", summary = "Delete an empty namespace")
  @ProblemAnswers.Missing
  @ProblemAnswers.Conflicting
  public void delete(String name) {
    NamespaceRow row = find(name);
    if (name.equals(NamespaceRow.DEFAULT)) {
      throw Problems.conflict("namespace default always exists");
    }
    long held = templates.countByNamespace(name) + secrets.countByNamespace(name);
    if (held > 0 || !deletion.deleteEmpty(name)) {
      throw Problems.conflict(
          "namespace "
              + name
              + " still holds "
              + row.usedVms()
              + " VMs, "
              + templates.countByNamespace(name)
              + " templates and "
              + secrets.countByNamespace(name)
              + " secrets: delete them first");
    }
    tokens.changed(); // the roles held in it went with it
    log.info("namespace {} deleted", name);
  }

  /** Gives the namespace its description and quota; 0 when there is no such namespace. */
  private int describe(String name, @Nullable String description, Quota quota, Instant now) {
    return namespaces.describe(
        name, description, quota.cpu(), quota.memory(), quota.vms(), quota.diskGi(), now);
  }

  private NamespaceRow find(String name) {
    return namespaces.findById(name).orElseThrow(() -> Problems.notFound("namespace", name));
  }

  private static Quota quota(@Nullable NamespaceRequest.QuotaRequest q) {
    if (q == null) {
      return Quota.NONE;
    }
    Long memory =
        q.memory() == null
            ? null
            : Quantities.parse("quota", Map.of("memory", q.memory())).get("memory");
    return new Quota(q.cpu(), memory, q.vms(), q.disk());
  }
}
