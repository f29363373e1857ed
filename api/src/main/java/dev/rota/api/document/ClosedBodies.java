package dev.rota.api.document;

import dev.rota.api.RequestFields;
import dev.rota.api.ShownAs;
import dev.rota.api.accounts.ServiceAccountRequest;
import dev.rota.api.vms.VmBatch;
import dev.rota.api.vms.VmRequest;
import dev.rota.api.vmsets.VmSetRequest;
import dev.rota.api.workers.DrainRequest;
import dev.rota.api.workers.HeartbeatRequest;
import dev.rota.api.workers.TaskReportRequest;
import dev.rota.api.workers.WorkerRequest;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The request bodies' schemas refuse a field they do not name, as the API does (its body reader
 * refuses any field a request does not have): each gets {@code additionalProperties: false}, and
 * the fields of the view it is {@link ShownAs}, which the API takes back and ignores, are named as
 * such. So a client, or a fuzzer, knows exactly which bodies are valid.
 */
final class ClosedBodies {
  /** Every body the API reads into a record, and the records inside them. */
  static final List<Class<?>> BODIES =
      List.of(
          VmRequest.class,
          VmBatch.Request.class,
          dev.rota.api.vms.LeaseRequest.class,
          VmSetRequest.class,
          dev.rota.api.vmsets.PoolRequest.class,
          WorkerRequest.class,
          DrainRequest.class,
          HeartbeatRequest.class,
          TaskReportRequest.class,
          ServiceAccountRequest.class,
          dev.rota.api.secrets.SecretRequest.class,
          dev.rota.api.secrets.SecretValueRequest.class,
          dev.rota.api.forward.AccessTokenRequest.class,
          dev.rota.api.images.ImagePrefetchRequest.class,
          dev.rota.api.cluster.ClusterSettingsRequest.class,
          dev.rota.api.cluster.ClusterPatch.class,
          dev.rota.api.volumes.VolumeRequest.class,
          dev.rota.api.vms.SnapshotRequest.class,
          dev.rota.api.templates.TemplateRequest.class,
          dev.rota.api.templates.DispatchRequest.class,
          dev.rota.api.schedules.ScheduleRequest.class,
          dev.rota.api.schedules.PauseRequest.class,
          dev.rota.api.namespaces.NamespaceRequest.class);

  private static final String SHOWN = "shown by the API; taken back and ignored";

  private ClosedBodies() {}

  @SuppressWarnings("unchecked")
  static Map<String, Object> apply(Map<String, Object> document) {
    Map<String, Object> schemas =
        (Map<String, Object>) ((Map<String, Object>) document.get("components")).get("schemas");
    for (Class<?> record : reachable()) {
      Object schema = schemas.get(SchemaNames.clean(generatedName(record)));
      if (schema instanceof Map<?, ?> map) {
        close((Map<String, Object>) map, record);
      }
    }
    // A set's template is a VM as POST /v1/vms takes it, read alike (the overlay spells it out).
    Map<String, Object> set = (Map<String, Object>) schemas.get("VmSetRequest");
    Map<String, Object> template =
        (Map<String, Object>) ((Map<String, Object>) set.get("properties")).get("template");
    close(template, VmRequest.class);
    // A pool's template is a set's, with an ephemeral disk: a claimed VM keeps its replica's task.
    Map<String, Object> pool = (Map<String, Object>) schemas.get("PoolRequest");
    Map<String, Object> poolTemplate = (Map<String, Object>) copy(template);
    poolTemplate.put(
        "description",
        "a set's template (each replica's name is <pool>-<ordinal>), with an ephemeral disk");
    // A pool's is given: it is not made of a VM template.
    poolTemplate.put("type", "object");
    ((List<Object>) poolTemplate.get("allOf"))
        .add(
            Map.of(
                "properties",
                Map.of(
                    "disk",
                    Map.of(
                        "type",
                        List.of("object", "null"),
                        "properties",
                        Map.of(
                            "persistent", Map.of("enum", java.util.Arrays.asList(false, null)))))));
    ((Map<String, Object>) pool.get("properties")).put("template", poolTemplate);
    return document;
  }

  /** A deep copy of a schema's maps and lists, which stay changeable. */
  @SuppressWarnings("unchecked")
  private static Object copy(Object schema) {
    if (schema instanceof Map<?, ?> map) {
      Map<String, Object> copied = new LinkedHashMap<>();
      map.forEach((k, v) -> copied.put((String) k, copy(v)));
      return copied;
    }
    if (schema instanceof List<?> list) {
      return new java.util.ArrayList<>(list.stream().map(ClosedBodies::copy).toList());
    }
    return schema;
  }

  @SuppressWarnings("unchecked")
  private static void close(Map<String, Object> schema, Class<?> record) {
    schema.put("additionalProperties", false);
    Map<String, Object> properties =
        (Map<String, Object>) schema.computeIfAbsent("properties", k -> new LinkedHashMap<>());
    RequestFields.own(record).forEach(name -> properties.putIfAbsent(name, new LinkedHashMap<>()));
    RequestFields.shownOnly(record)
        .forEach(
            name ->
                properties.putIfAbsent(name, new LinkedHashMap<>(Map.of("description", SHOWN))));
  }

  /** The bodies and every record reachable through their components (lists and maps included). */
  private static Set<Class<?>> reachable() {
    Set<Class<?>> seen = new HashSet<>();
    Deque<Type> next = new ArrayDeque<>(BODIES);
    while (!next.isEmpty()) {
      Type type = next.pop();
      if (type instanceof ParameterizedType p) {
        next.addAll(List.of(p.getActualTypeArguments()));
      } else if (type instanceof Class<?> c && c.isRecord() && seen.add(c)) {
        for (RecordComponent component : c.getRecordComponents()) {
          next.add(component.getGenericType());
        }
      }
    }
    return seen;
  }

  /**
   * The schema name the generator gives a record: its simple name, a nested one's with its outer.
   */
  private static String generatedName(Class<?> record) {
    return record.getEnclosingClass() == null
        ? record.getSimpleName()
        : generatedName(record.getEnclosingClass()) + "." + record.getSimpleName();
  }
}
