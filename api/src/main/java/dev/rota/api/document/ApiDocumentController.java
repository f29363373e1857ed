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
 * {@code openapi-overlay.yml} laid over it.
 * Swagger UI (dev mode) reads it at {@code /swagger/rota-1.yml}.
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

  @Get("/openapi.yml")
  @Produces("application/yaml")
  public String openapi() {
    return document;
  }

  @Get("/swagger/rota-1.yml")
  @Produces("application/yaml")
  public String swagger() {
    return document;
  }

  /** The document as served; fails at start, naming the stray, when the overlay does not fit. */
  static String render() {
    Yaml yaml = new Yaml(new SafeConstructor(new LoaderOptions()), new Representer(dumperOptions()), dumperOptions());
    Map<String, Object> merged = OpenApiOverlay.apply(OpenApi31.from30(load(yaml, GENERATED)), load(yaml, OVERLAY));
    return yaml.dump(merged);
  }

  private static DumperOptions dumperOptions() {
    DumperOptions options = new DumperOptions();
    options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    options.setWidth(120);
    return options;
  }

  private static Map<String, Object> load(Yaml yaml, String resource) {
    try (InputStream in = ApiDocumentController.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is not on the classpath");
      }
      return yaml.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
