package dev.rota.api.vms;

import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;

/**
 * One of the ports a VM serves: its name (a lowercase label of up to 15 characters, as Kubernetes
 * names a container's ports) and its port in the guest. The agent that runs the VM gives it a port
 * of the worker's, shown in the VM's {@code endpoints}.
 */
@Serdeable
@com.fasterxml.jackson.annotation.JsonIgnoreProperties(ignoreUnknown = false)
public record PortRequest(
    @NotNull
        @Pattern(
            regexp = PortRequest.NAME,
            message =
                "must be a port name: up to 15 lowercase letters, digits and '-', such as ssh")
        String name,
    @NotNull @Min(1) @Max(65535) Integer port) {
  public static final String NAME = "^[a-z]([a-z0-9-]{0,13}[a-z0-9])?$";
}
