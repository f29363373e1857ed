package dev.rota.api.vmsets;

import dev.rota.api.Durations;
import dev.rota.api.Names;
import dev.rota.api.ShownAs;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.Map;

/**
 * {@code POST /v1/vm-sets} and {@code PUT /v1/vm-sets/{name}}. The template is a VM as {@code POST
 * /v1/vms} takes it, without a name (each replica's is {@code <set>-<ordinal>}), and is checked as
 * one; or, instead of it, {@code fromTemplate} and {@code parameters} make it of a VM template, as
 * a VM is made of one. The spread is a string or an object, so both are read by the service.
 */
@Serdeable
@ShownAs(VmSetView.class)
public record VmSetRequest(
    @NotNull @Pattern(regexp = VmSetRequest.NAME, message = VmSetRequest.NAME_MESSAGE) String name,
    @NotNull @Min(0) @Max(VmSetRequest.MAX_REPLICAS) Integer replicas,
    @Nullable Map<String, Object> template,
    @Nullable Object spread,
    @Nullable @Min(0) @Max(VmSetRequest.MAX_REPLICAS) Integer maxUnavailable,
    @Nullable @Valid Update update,
    @Nullable @Pattern(regexp = Names.DNS_LABEL, message = "must be the name of a template")
        String fromTemplate,
    @Nullable @Size(max = 32) Map<String, Object> parameters,
    @Nullable @Pattern(regexp = Names.DNS_LABEL, message = "must be the name of a namespace")
        String namespace) {

  /**
   * How a new template is rolled out over the replicas: {@code maxSurge} replicas beyond those
   * wanted may be made meanwhile (0 unless given); a new replica counts as available once it has
   * run, ready, for {@code minHealthyTime} (0s unless given); a rollout with no more new replicas
   * available for {@code progressDeadline} (10m unless given) is stalled, and with {@code
   * autoRevert} goes back to the version that last rolled out whole. With {@code canary} above 0 a
   * rollout makes that many new replicas first and waits until they are promoted (by a user, or
   * with {@code autoPromote} by themselves once available).
   */
  @Serdeable
  public record Update(
      @Nullable @Min(0) @Max(VmSetRequest.MAX_REPLICAS) Integer maxSurge,
      @Nullable
          @Pattern(regexp = Durations.PATTERN_OR_ZERO, message = Durations.MESSAGE + ", or 0s")
          String minHealthyTime,
      @Nullable @Pattern(regexp = Durations.PATTERN, message = Durations.MESSAGE)
          String progressDeadline,
      @Nullable Boolean autoRevert,
      @Nullable @Min(0) @Max(VmSetRequest.MAX_REPLICAS) Integer canary,
      @Nullable Boolean autoPromote) {}

  public static final int MAX_REPLICAS = 10_000;

  /** A DNS label short enough that {@code <set>-9999} still is one. */
  public static final String NAME = "^[a-z0-9]([a-z0-9-]{0,56}[a-z0-9])?$";

  public static final String NAME_MESSAGE =
      "must be a DNS label of at most 58 characters (lowercase letters, digits or '-', starting and ending with a"
          + " letter or digit), so that its replicas' names <set>-<ordinal> are DNS labels too";
}
