package dev.rota.api.document;

import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Produces;
import io.swagger.v3.oas.annotations.Hidden;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.representer.Representer;

/**
 * The API's OpenAPI document, open to all like {@code /health}: generated from the controllers at
 * compile time ({@code META-INF/swagger/rota-1.yml}), made OpenAPI 3.1 ({@link OpenApi31}), with
 * {@code openapi-overlay.yml} laid over it, its schemas given names code generators take ({@link
 * SchemaNames}). Swagger UI (dev mode) reads it at {@code /swagger/rota-1.yml}.
 */
@Controller
@Hidden
public class ApiDocumentController {
  public static final String GENERATED = "META-INF/swagger/rota-1.yml";
  public static final String OVERLAY = "openapi-overlay.yml";
  private final String document;

  public ApiDocumentController() {
    this.document = render();
  }

  @Get(uris = {"/openapi.yml", "/swagger/rota-1.yml"})
  @Produces("application/yaml")
  public String document() {
    return document;
  }

  /** The patterns the overlay names as {@code {{NAME}}}: the ones the API checks with. */
  static final Map<String, String> PATTERNS =
      Map.ofEntries(
          Map.entry("ENV_NAME", dev.rota.api.Limits.ENV_NAME),
          Map.entry("RESOURCE_NAME", dev.rota.api.Limits.RESOURCE_NAME),
          Map.entry("LABEL_KEY", dev.rota.api.Limits.LABEL_KEY),
          Map.entry("IMAGE_ADDRESS", dev.rota.api.Limits.IMAGE_ADDRESS),
          Map.entry("DISK_IMAGE", dev.rota.api.Limits.DISK_IMAGE),
          Map.entry(
              "ROLES_BUT_WORKER", dev.rota.api.accounts.ServiceAccountRequest.ROLES_BUT_WORKER),
          Map.entry("MEMORY", dev.rota.api.Quantities.MEMORY_PATTERN),
          Map.entry("VM_MEMORY", dev.rota.api.Quantities.SOME_MEMORY_PATTERN),
          Map.entry("EGRESS_TARGET", dev.rota.agentapi.EgressTarget.PATTERN),
          Map.entry("DNS_LABEL", dev.rota.api.Names.DNS_LABEL),
          Map.entry("POOL_NAME", dev.rota.api.vms.VmRequest.POOL_NAME));

  /** The document as served; fails at start, naming the stray, when the overlay does not fit. */
  static String render() {
    Yaml yaml =
        new Yaml(
            new SafeConstructor(new LoaderOptions()),
            new Representer(dumperOptions()),
            dumperOptions());
    String overlay = read(OVERLAY);
    for (Map.Entry<String, String> p : PATTERNS.entrySet()) {
      // Inside a double-quoted YAML string, where a backslash or a quote would need escaping.
      if (p.getValue().contains("\\") || p.getValue().contains("\"")) {
        throw new IllegalStateException(
            p.getKey() + " cannot go into the overlay as it is: " + p.getValue());
      }
      overlay = overlay.replace("{{" + p.getKey() + "}}", p.getValue());
    }
    if (overlay.contains("{{")) {
      throw new IllegalStateException(
          OVERLAY
              + " names a pattern PATTERNS does not have: "
              + overlay.substring(overlay.indexOf("{{")).lines().findFirst().orElse(""));
    }
    Map<String, Object> merged =
        ClosedBodies.apply(
            SchemaNames.apply(
                OpenApiOverlay.apply(
                    OpenApi31.from30(yaml.load(read(GENERATED))), yaml.load(overlay))));
    return yaml.dump(merged);
  }

  private static DumperOptions dumperOptions() {
    DumperOptions options = new DumperOptions();
    options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    options.setWidth(120);
    return options;
  }

  private static String read(String resource) {
    try (InputStream in =
        ApiDocumentController.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is not on the classpath");
      }
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
