package dev.rota.api.vms;

import io.micronaut.serde.annotation.Serdeable;
import java.util.List;

/** {@code POST /v1/vms/batch}'s answer: the VMs created, in the order asked. */
@Serdeable
public record VmBatch(List<VmView> items) {
  /** The most VMs one batch may create. */
  public static final int MAX_ITEMS = 1000;

  /**
   * What {@code POST /v1/vms/batch} takes (for the API's description; the body is read item by
   * item).
   */
  @Serdeable
  public record Request(
      @jakarta.validation.constraints.NotNull
          @jakarta.validation.constraints.Size(min = 1, max = MAX_ITEMS)
          List<VmRequest> items) {}
}
