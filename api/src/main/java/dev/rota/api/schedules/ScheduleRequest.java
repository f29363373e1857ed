package dev.rota.api.schedules;

import dev.rota.api.Durations;
import dev.rota.api.Names;
import dev.rota.api.ShownAs;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.serde.annotation.Serdeable;
import io.swagger.v3.oas.annotations.media.Schema;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import java.util.Map;

/**
 * {@code POST /v1/schedules}: a VM of a template made again and again, at the times of a cron
 * expression or every interval.
 *
 * @param name the schedule's name, the start of each of its VMs' names
 * @param template the template each run makes a VM of
 * @param parameters values for the template's parameters, the same each run
 * @param cron when runs are due: five fields, or {@code @daily} and its kin; or give interval
 * @param interval a run every so long (at least 1s); or give cron
 * @param timeZone the IANA time zone the cron expression is read in (UTC without)
 * @param jitter each run made up to this much later than its time, at random
 * @param overlap a run due while the last run's VM still runs: skip (the default), bufferOne,
 *     allowAll, or cancelOther (the last one's VM is stopped)
 * @param paused made paused: no run comes due until it is resumed
 * @param note why it is paused
 */
@Serdeable
@ShownAs(ScheduleView.class)
public record ScheduleRequest(
    @NotNull @Size(max = 40) @Pattern(regexp = Names.DNS_LABEL, message = Names.DNS_LABEL_MESSAGE)
        String name,
    @NotNull @Pattern(regexp = Names.DNS_LABEL, message = "must be the name of a template")
        String template,
    @Nullable @Size(max = 32) Map<String, Object> parameters,
    @Nullable @Size(min = 1, max = 256) @Schema(example = "0 2 * * MON-FRI") String cron,
    @Nullable @Pattern(regexp = Durations.PATTERN, message = Durations.MESSAGE) String interval,
    @Nullable @Size(min = 1, max = 64) @Schema(example = "Europe/Berlin") String timeZone,
    @Nullable @Pattern(regexp = Durations.PATTERN_OR_ZERO, message = Durations.MESSAGE + ", or 0s")
        String jitter,
    @Nullable
        @Pattern(
            regexp = "^(skip|bufferOne|allowAll|cancelOther)$",
            message = "must be one of \"skip\", \"bufferOne\", \"allowAll\", \"cancelOther\"")
        String overlap,
    @Nullable Boolean paused,
    @Nullable @Size(max = 512) String note) {}
