package dev.rota.api.templates;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.rota.api.Names;
import dev.rota.api.ShownAs;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.List;
import java.util.Map;

/**
 * {@code POST /v1/templates}, {@code PUT /v1/templates/{name}}: a VM's spec without its name, and
 * the typed parameters that fill its fields when a VM is made of it.
 *
 * @param spec a VM as {@code POST /v1/vms} takes it, without {@code name} or {@code namespace}
 * @param namespace where it lives ({@code default} unless given): the VMs and sets made of it live
 *     there too
 */
@Serdeable
@ShownAs(TemplateView.class)
public record TemplateRequest(
    @NotNull @Pattern(regexp = Names.DNS_LABEL, message = Names.DNS_LABEL_MESSAGE) String name,
    @NotNull Map<String, Object> spec,
    @Nullable @Size(max = 32) List<@NotNull @Valid Parameter> parameters,
    @Nullable @Size(max = 1024) String description,
    @Nullable @Pattern(regexp = Names.DNS_LABEL, message = "must be the name of a namespace")
        String namespace) {

  /**
   * A parameter: a value of {@code type} given as a VM is made, put at {@code field} of the spec
   * ({@code resources.cpu}, {@code env.BRANCH}, {@code command}); one without a default is
   * required.
   */
  @Serdeable
  @com.fasterxml.jackson.annotation.JsonInclude(
      com.fasterxml.jackson.annotation.JsonInclude.Include.ALWAYS)
  public record Parameter(
      @NotNull
          @Pattern(regexp = PARAMETER_NAME, message = "must be a letter, then letters, digits or _")
          String name,
      @NotNull
          @Pattern(
              regexp = "^(string|integer|boolean|duration|list)$",
              message =
                  "must be one of \"string\", \"integer\", \"boolean\", \"duration\", \"list\"")
          String type,
      @NotNull
          @Pattern(regexp = FIELD, message = "must be a field of the spec, such as resources.cpu")
          String field,
      @JsonProperty("default") @Nullable Object defaultValue,
      @Nullable @Size(max = 1024) String description) {}

  public static final String PARAMETER_NAME = "^[a-zA-Z][a-zA-Z0-9_]{0,62}$";

  /** A dotted path of up to four names. */
  public static final String FIELD =
      "^[a-zA-Z_][a-zA-Z0-9_-]{0,252}(\\.[a-zA-Z0-9_.-]{1,253}){0,3}$";
}
