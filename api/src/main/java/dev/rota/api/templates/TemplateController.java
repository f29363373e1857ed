package dev.rota.api.templates;

import dev.rota.api.JsonBodies;
import dev.rota.api.auth.NamespaceScope;
import dev.rota.api.auth.RequiresRole;
import dev.rota.api.auth.Role;
import dev.rota.api.problem.ProblemAnswers;
import dev.rota.api.problem.Problems;
import dev.rota.api.vms.VmRequest;
import dev.rota.api.vms.VmService;
import dev.rota.api.vms.VmView;
import dev.rota.control.NamespaceQuotas;
import dev.rota.store.Sql;
import dev.rota.store.TemplateRepository;
import dev.rota.store.TemplateRow;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.type.Argument;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Put;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.http.annotation.Status;
import io.micronaut.json.JsonMapper;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.parameters.RequestBody;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /v1/templates}: VM specs with typed parameters, that {@code POST /v1/vms} makes VMs of
 * ({@code fromTemplate}, {@code parameters}), as a dispatch does. A VM made of one keeps the spec
 * it was made with: a template's change makes no VM change.
 */
@ProblemAnswers.Guarded
@Tag(name = "Templates", description = "VM specs with typed parameters, made into VMs by name")
@Controller("/v1/templates")
@ExecuteOn(TaskExecutors.BLOCKING)
public class TemplateController {
  private static final Logger log = LoggerFactory.getLogger(TemplateController.class);

  /** The request fields a template's spec leaves to each VM made of it, or that make no sense. */
  private static final Set<String> NOT_IN_SPEC =
      Set.of("name", "fromTemplate", "parameters", "fromPool", "namespace");

  private final TemplateRepository templates;
  private final JsonBodies bodies;
  private final JsonMapper json;
  private final VmExpansion expansion;
  private final Clock clock;
  private final TemplateDispatch dispatch;
  private final dev.rota.api.namespaces.NamespaceUse namespaceUse;

  public TemplateController(
      TemplateRepository templates,
      JsonBodies bodies,
      JsonMapper json,
      VmExpansion expansion,
      Clock clock,
      TemplateDispatch dispatch,
      dev.rota.api.namespaces.NamespaceUse namespaceUse) {
    this.namespaceUse = namespaceUse;
    this.dispatch = dispatch;
    this.templates = templates;
    this.bodies = bodies;
    this.json = json;
    this.expansion = expansion;
    this.clock = clock;
  }

  @RequiresRole({Role.COMPUTE_WRITE})
  @NamespaceScope(NamespaceScope.From.BODY)
  @Post
  @Status(HttpStatus.CREATED)
  @RequestBody(
      required = true,
      content = @Content(schema = @Schema(implementation = TemplateRequest.class)))
  @Operation(operationId = "createTemplate", summary = "Create a VM template")
  @ProblemAnswers.Invalid
  @ProblemAnswers.Conflicting
  public TemplateView create(@Body @Nullable String body) {
    TemplateRequest request = checked(bodies.read(body, TemplateRequest.class));
    Instant now = clock.instant();
    TemplateRow row = row(request, now, now);
    try {
      templates.save(row);
    } catch (RuntimeException e) {
      if (Sql.isUniqueViolation(e)) {
        throw Problems.conflict(
            "template '"
                + request.name()
                + "' already exists; PUT /v1/templates/"
                + request.name()
                + " replaces it");
      }
      throw e;
    }
    log.info("template {} created", request.name());
    return view(row);
  }

  /** 200; VMs made of it before keep the spec they were made with. */
  @RequiresRole({Role.COMPUTE_WRITE})
  @NamespaceScope(NamespaceScope.From.TEMPLATE)
  @Put("/{name}")
  @RequestBody(
      required = true,
      content = @Content(schema = @Schema(implementation = TemplateRequest.class)))
  @Operation(operationId = "replaceTemplate", summary = "Replace a VM template")
  @ProblemAnswers.Invalid
  @ProblemAnswers.Missing
  public TemplateView replace(String name, @Body @Nullable String body) {
    TemplateRequest request = checked(bodies.read(body, TemplateRequest.class));
    if (!name.equals(request.name())) {
      throw Problems.badRequest(
          "name",
          "must be the template's own name, \"" + name + "\", got \"" + request.name() + "\"");
    }
    TemplateRow was = find(name);
    if (!was.namespace().equals(NamespaceQuotas.orDefault(request.namespace()))) {
      throw Problems.badRequest(
          "namespace",
          "template "
              + name
              + " is in namespace "
              + was.namespace()
              + ": a template stays in the namespace it was made in");
    }
    TemplateRow row = templates.update(row(request, was.createdAt(), clock.instant()));
    log.info("template {} replaced", name);
    return view(row);
  }

  @RequiresRole({Role.COMPUTE_READ})
  @NamespaceScope(NamespaceScope.From.QUERY)
  @Get
  @Operation(operationId = "listTemplates", summary = "List VM templates, by name")
  @ProblemAnswers.Invalid
  public Map<String, List<TemplateView>> list(
      @QueryValue
          @Nullable
          @Schema(
              pattern = dev.rota.api.Names.DNS_LABEL,
              description = "only those of this namespace")
          String namespace) {
    String only = dev.rota.api.namespaces.NamespaceUse.filter(namespace);
    return Map.of(
        "items",
        templates.listOrderByName().stream()
            .filter(t -> only == null || only.equals(t.namespace()))
            .map(this::view)
            .toList());
  }

  @RequiresRole({Role.COMPUTE_READ})
  @NamespaceScope(NamespaceScope.From.TEMPLATE)
  @Get("/{name}")
  @Operation(operationId = "getTemplate", summary = "Get a VM template")
  @ProblemAnswers.Missing
  public TemplateView get(String name) {
    return view(find(name));
  }

  /**
   * A VM of the template, now: 201 with it. With an {@code Idempotency-Key}, the VM's name is made
   * of the key, so that a dispatch sent again (a client that lost the answer) finds the VM it made:
   * 200 with it, while it exists.
   */
  @RequiresRole({Role.COMPUTE_WRITE})
  @NamespaceScope(NamespaceScope.From.TEMPLATE)
  @Post("/{name}/dispatch")
  @RequestBody(content = @Content(schema = @Schema(implementation = DispatchRequest.class)))
  @Operation(operationId = "dispatchTemplate", summary = "Make a VM of a template now")
  @ApiResponse(
      responseCode = "201",
      description = "the VM made",
      content =
          @Content(mediaType = "application/json", schema = @Schema(implementation = VmView.class)))
  @ApiResponse(
      responseCode = "200",
      description = "the VM the same Idempotency-Key made already",
      content =
          @Content(mediaType = "application/json", schema = @Schema(implementation = VmView.class)))
  @ProblemAnswers.Invalid
  @ProblemAnswers.Missing
  @ProblemAnswers.Conflicting
  public HttpResponse<VmView> dispatch(
      String name,
      @Header("Idempotency-Key")
          @Nullable
          @Schema(
              description = "a key of the caller's, up to 255 characters: one VM per key",
              minLength = 1,
              maxLength = 255)
          String key,
      @Body @Nullable String body) {
    DispatchRequest request =
        body == null || body.isBlank()
            ? new DispatchRequest(null, null)
            : bodies.read(body, DispatchRequest.class);
    if (key != null && (key.isEmpty() || key.length() > 255)) {
      throw Problems.badRequest("Idempotency-Key", "must be 1 to 255 characters");
    }
    TemplateDispatch.Dispatched done =
        dispatch.dispatch(name, request.name(), key, request.parameters());
    return done.made() ? HttpResponse.created(done.vm()) : HttpResponse.ok(done.vm());
  }

  /** 204; VMs made of it keep their specs. */
  @RequiresRole({Role.COMPUTE_WRITE})
  @NamespaceScope(NamespaceScope.From.TEMPLATE)
  @Delete("/{name}")
  @Status(HttpStatus.NO_CONTENT)
  @Operation(operationId = "deleteTemplate", summary = "Delete a VM template")
  @ProblemAnswers.Missing
  public void delete(String name) {
    find(name);
    templates.deleteById(name);
    log.info("template {} deleted", name);
  }

  /**
   * The request, checked: its spec a VM's without the fields each VM gets as it is made, each
   * parameter's field one of the spec's and its default of its type; then the spec with the
   * defaults put in as a VM, checked as {@code POST /v1/vms} checks it once every parameter has a
   * value (a required one may fill what the spec itself needs).
   */
  private TemplateRequest checked(TemplateRequest request) {
    namespaceUse.check(
        NamespaceQuotas.orDefault(request.namespace()), "namespace", Role.COMPUTE_WRITE);
    if (request.spec().containsKey("namespace")) {
      throw Problems.badRequest(
          "spec.namespace", "is the template's: give namespace beside spec, not in it");
    }
    for (String field : NOT_IN_SPEC) {
      if (request.spec().containsKey(field)) {
        throw Problems.badRequest(
            "spec." + field, "is not part of a template: each VM made of it gives its own");
      }
    }
    Set<String> vmFields = new HashSet<>(dev.rota.api.RequestFields.own(VmRequest.class));
    vmFields.removeAll(NOT_IN_SPEC);
    Map<String, Object> spec = new LinkedHashMap<>(request.spec());
    List<TemplateRequest.Parameter> parameters =
        request.parameters() == null ? List.of() : request.parameters();
    Set<String> names = new HashSet<>();
    boolean allGiven = true;
    for (int i = 0; i < parameters.size(); i++) {
      TemplateRequest.Parameter p = parameters.get(i);
      String at = "parameters." + i;
      if (!names.add(p.name())) {
        throw Problems.badRequest(at + ".name", p.name() + " is named twice");
      }
      if (!vmFields.contains(p.field().split("\\.")[0])) {
        throw Problems.badRequest(
            at + ".field", p.field() + " is not a field of a VM's spec, such as resources.cpu");
      }
      if (p.defaultValue() == null) {
        allGiven = false;
      } else {
        Parameters.put(
            spec,
            p.field(),
            Parameters.checked(p.type(), p.defaultValue(), at + ".default"),
            at + ".field");
      }
    }
    spec.put("name", "template-check");
    VmRequest vm = bodies.readPart("spec", spec, VmRequest.class);
    if (allGiven) {
      VmService.spec(expansion.expand(vm, "spec."), "spec.");
    }
    return request;
  }

  private TemplateRow row(TemplateRequest request, Instant createdAt, Instant now) {
    return new TemplateRow(
        request.name(),
        write(request.spec()),
        write(request.parameters() == null ? List.of() : request.parameters()),
        request.description(),
        createdAt,
        now,
        NamespaceQuotas.orDefault(request.namespace()));
  }

  private TemplateView view(TemplateRow row) {
    try {
      return new TemplateView(
          row.name(),
          json.readValue(row.spec(), Argument.mapOf(String.class, Object.class)),
          json.readValue(row.parameters(), Argument.listOf(TemplateRequest.Parameter.class)),
          row.description(),
          row.createdAt(),
          row.updatedAt(),
          row.namespace());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private String write(Object value) {
    try {
      return json.writeValueAsString(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private TemplateRow find(String name) {
    return templates.findById(name).orElseThrow(() -> Problems.notFound("template", name));
  }
}
