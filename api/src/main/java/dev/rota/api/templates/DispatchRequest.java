package dev.rota.api.templates;

import dev.rota.api.Names;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.Map;

/**
 * {@code POST /v1/templates/{name}/dispatch}: a VM of the template, now.
 *
 * @param name the VM's name; left out, one is made of the template's name
 * @param parameters values for the template's parameters
 */
@Serdeable
public record DispatchRequest(
    @Nullable @Pattern(regexp = Names.DNS_LABEL, message = Names.DNS_LABEL_MESSAGE) String name,
    @Nullable @Size(max = 32) Map<String, Object> parameters) {}
