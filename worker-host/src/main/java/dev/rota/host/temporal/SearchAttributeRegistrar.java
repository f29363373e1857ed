package dev.rota.host.temporal;

import dev.rota.workflows.RotaSearchAttributes;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.operatorservice.v1.AddSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.ListSearchAttributesRequest;
import io.temporal.api.operatorservice.v1.OperatorServiceGrpc.OperatorServiceBlockingStub;
import io.temporal.common.SearchAttributeKey;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers Rota's custom search attributes before any workflow sets them; a workflow that sets an
 * unregistered one fails its tasks with BAD_SEARCH_ATTRIBUTES and stops moving.
 */
@Singleton
public class SearchAttributeRegistrar implements dev.rota.control.TemporalNamespaceSetup {
  private static final Logger log = LoggerFactory.getLogger(SearchAttributeRegistrar.class);

  private final WorkflowServiceStubs stubs;
  private final String namespace;

  @Inject
  public SearchAttributeRegistrar(WorkflowServiceStubs stubs, TemporalSettings settings) {
    this(stubs, settings.namespace());
  }

  private SearchAttributeRegistrar(WorkflowServiceStubs stubs, String namespace) {
    this.stubs = stubs;
    this.namespace = namespace;
  }

  /** For a client of its own (the benchmarks), outside the host's context. */
  public static SearchAttributeRegistrar of(WorkflowServiceStubs stubs, String namespace) {
    return new SearchAttributeRegistrar(stubs, namespace);
  }

  @Override
  public void ensure() {
    List<String> added = registerMissing();
    if (!added.isEmpty()) {
      log.warn("registered search attributes {} that the server had lost", added);
    }
  }

  /** Adds every attribute the server does not have yet; returns the names it added. */
  public List<String> registerMissing() {
    // OperatorServiceStubsOptions.build() throws a NullPointerException here; this form works.
    OperatorServiceStubs operator =
        OperatorServiceStubs.newServiceStubs(
            OperatorServiceStubsOptions.newBuilder()
                .setChannel(stubs.getRawChannel())
                .validateAndBuildWithDefaults());
    try {
      Map<String, IndexedValueType> existing = existing(operator.blockingStub());
      List<String> added = new ArrayList<>();
      for (SearchAttributeKey<?> key : RotaSearchAttributes.ALL) {
        IndexedValueType present = existing.get(key.getName());
        if (present == null) {
          if (add(operator.blockingStub(), key)) {
            added.add(key.getName());
          }
        } else if (present != key.getValueType()) {
          throw new IllegalStateException(
              "search attribute "
                  + key.getName()
                  + " exists as "
                  + present
                  + " but Rota needs "
                  + key.getValueType());
        }
      }
      log.debug("registered search attributes {}", added);
      return added;
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.PERMISSION_DENIED) {
        // Temporal Cloud manages search attributes outside the operator API.
        log.warn(
            "not allowed to register search attributes {}; register them for namespace {} before starting",
            RotaSearchAttributes.ALL.stream().map(SearchAttributeKey::getName).toList(),
            namespace);
        return List.of();
      }
      throw e;
    } finally {
      operator.shutdown();
    }
  }

  private Map<String, IndexedValueType> existing(OperatorServiceBlockingStub operator) {
    try {
      return operator
          .listSearchAttributes(
              ListSearchAttributesRequest.newBuilder().setNamespace(namespace).build())
          .getCustomAttributesMap();
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.UNIMPLEMENTED) {
        // The embedded test server can add attributes but not list them.
        return Map.of();
      }
      throw e;
    }
  }

  private boolean add(OperatorServiceBlockingStub operator, SearchAttributeKey<?> key) {
    try {
      operator.addSearchAttributes(
          AddSearchAttributesRequest.newBuilder()
              .setNamespace(namespace)
              .putSearchAttributes(key.getName(), key.getValueType())
              .build());
      return true;
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.ALREADY_EXISTS) {
        return false;
      }
      throw e;
    }
  }
}
