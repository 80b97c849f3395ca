package io.rdmamon.collector.podresources;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.rdmamon.collector.podresources.v1.ListPodResourcesRequest;
import io.rdmamon.collector.podresources.v1.ListPodResourcesResponse;
import io.rdmamon.collector.podresources.v1.PodResourcesListerGrpc;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Calls the kubelet's pod-resources API ({@code v1.PodResourcesLister/List}): which devices each pod's containers hold
 * on this node. The kubelet serves it on a unix socket without TLS; the caller needs read access to the socket.
 */
public final class PodResourcesClient implements AutoCloseable {
    /** A node with many pods and devices answers with more than gRPC's 4 MiB default. */
    private static final int MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

    private final ManagedChannel channel;
    private final Duration timeout;

    public PodResourcesClient(ManagedChannel channel, Duration timeout) {
        this.channel = channel;
        this.timeout = timeout;
    }

    /** A client of the kubelet socket at {@code socket} (the channel connects lazily, on the first call). */
    public static PodResourcesClient forSocket(Path socket, Duration timeout) {
        ManagedChannel channel = Grpc.newChannelBuilder("unix://" + socket.toAbsolutePath(),
                        InsecureChannelCredentials.create())
                .maxInboundMessageSize(MAX_RESPONSE_BYTES)
                .build();
        return new PodResourcesClient(channel, timeout);
    }

    /** @throws StatusRuntimeException when the kubelet cannot be reached or does not answer within the timeout */
    public ListPodResourcesResponse list() {
        return PodResourcesListerGrpc.newBlockingStub(channel)
                .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .list(ListPodResourcesRequest.getDefaultInstance());
    }

    @Override
    public void close() {
        channel.shutdownNow();
        try {
            channel.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
