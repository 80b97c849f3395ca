package io.rdmamon.collector.podresources;

import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.stub.StreamObserver;
import io.rdmamon.collector.podresources.v1.ContainerDevices;
import io.rdmamon.collector.podresources.v1.ContainerResources;
import io.rdmamon.collector.podresources.v1.ListPodResourcesRequest;
import io.rdmamon.collector.podresources.v1.ListPodResourcesResponse;
import io.rdmamon.collector.podresources.v1.PodResources;
import io.rdmamon.collector.podresources.v1.PodResourcesListerGrpc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A kubelet pod-resources endpoint on a real unix socket (gRPC over netty epoll, as the kubelet serves it) answering
 * {@code List} with whatever the test set. It can fail calls, and stop and start again like a restarting kubelet.
 */
public final class FakeKubelet implements AutoCloseable {
    private final Path socket;
    private final AtomicInteger calls = new AtomicInteger();
    private volatile ListPodResourcesResponse answer = ListPodResourcesResponse.getDefaultInstance();
    private volatile Status failure;
    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private Server server;

    public FakeKubelet(Path socket) {
        this.socket = socket;
    }

    public FakeKubelet start() throws IOException {
        Files.deleteIfExists(socket);
        boss = new EpollEventLoopGroup(1);
        workers = new EpollEventLoopGroup(1);
        server = NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .channelType(EpollServerDomainSocketChannel.class)
                .bossEventLoopGroup(boss)
                .workerEventLoopGroup(workers)
                .addService(new PodResourcesListerGrpc.PodResourcesListerImplBase() {
                    @Override
                    public void list(ListPodResourcesRequest request,
                                     StreamObserver<ListPodResourcesResponse> responses) {
                        calls.incrementAndGet();
                        Status failing = failure;
                        if (failing != null) {
                            responses.onError(failing.asRuntimeException());
                            return;
                        }
                        responses.onNext(answer);
                        responses.onCompleted();
                    }
                })
                .build()
                .start();
        return this;
    }

    public void answer(PodResources... pods) {
        answer = ListPodResourcesResponse.newBuilder().addAllPodResources(List.of(pods)).build();
    }

    /** Null: answer normally again. */
    void fail(Status status) {
        failure = status;
    }

    int calls() {
        return calls.get();
    }

    void stop() throws InterruptedException {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @Override
    public void close() throws InterruptedException {
        if (server != null && !server.isShutdown()) {
            stop();
        }
    }

    /** Devices of one resource held by a container. */
    public static ContainerDevices held(String resource, String... ids) {
        return ContainerDevices.newBuilder().setResourceName(resource).addAllDeviceIds(List.of(ids)).build();
    }

    /** A pod whose containers each hold the given devices: one container per argument. */
    public static PodResources pod(String namespace, String name, ContainerDevices... perContainer) {
        PodResources.Builder pod = PodResources.newBuilder().setNamespace(namespace).setName(name);
        for (int i = 0; i < perContainer.length; i++) {
            pod.addContainers(ContainerResources.newBuilder().setName("c" + i).addDevices(perContainer[i]));
        }
        return pod.build();
    }
}
