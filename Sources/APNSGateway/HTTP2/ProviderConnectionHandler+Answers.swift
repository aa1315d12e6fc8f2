import APNSCore
import HeraldHTTP2
import NIOCore
import NIOHPACK
import NIOHTTP2

/// Writing answers: HEADERS and DATA per stream, identifiers named by their HPACK index after the first, GOAWAY, and
/// flushes every ``ProviderConnectionHandler/flushEvery`` answers while requests are still being read.
extension ProviderConnectionHandler {
    func write(_ streamID: HTTP2StreamID, _ response: ProviderResponse, context: ChannelHandlerContext) {
        if let reason = response.goAway {
            goAway(before: streamID, reason: reason, context: context)
            return
        }
        // The raised stream limit goes out before the first answer, while its stream is still open: a client that
        // reads a SETTINGS change on an idle connection differently from one on a busy one (AsyncHTTPClient's pool
        // scheduled its idle timer twice and trapped in a debug build) sees it with a request in flight.
        if !streamLimitRaised, authentication.state.isAuthenticated {
            streamLimitRaised = true
            let settings = [HTTP2Setting(parameter: .maxConcurrentStreams, value: Self.authenticatedStreamLimit)]
            context.write(
                wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .settings(.settings(settings)))),
                promise: nil)
        }
        var headers = HPACKHeaders()
        headers.reserveCapacity(4)
        headers.add(name: ":status", value: String(response.status))
        addIdentifier(response.idHeader, response.apnsID, to: &headers)
        if let uniqueID = response.uniqueID { addIdentifier(APNSRequestHeaders.Name.uniqueID, uniqueID, to: &headers) }
        for (name, value) in response.extraHeaders { headers.add(name: name, value: value, indexing: .nonIndexable) }
        write(
            streamID, headers: headers, body: response.error.map { Array($0.encoded()) } ?? response.body,
            context: context)
    }

    /// Adds an identifier unique to this answer, not indexed (indexing values no answer repeats would only churn
    /// HPACK's dynamic table), except the first of its name on the connection: that one enters the table, and every
    /// later answer names the header by its index instead of spelling (Huffman-coding) the name again.
    func addIdentifier(_ name: String, _ value: String, to headers: inout HPACKHeaders) {
        let indexed = identifierNamesIndexed.contains(name)
        if !indexed { identifierNamesIndexed.append(name) }
        headers.add(name: name, value: value, indexing: indexed ? .nonIndexable : .indexable)
    }

    func write(
        _ streamID: HTTP2StreamID, status: Int, extra: [(String, String)], body: [UInt8]?,
        contentType: String = "application/json", context: ChannelHandlerContext
    ) {
        var headers = HPACKHeaders([(":status", String(status))])
        for (name, value) in extra { headers.add(name: name, value: value, indexing: .nonIndexable) }
        write(streamID, headers: headers, body: body, contentType: contentType, context: context)
    }

    /// Writes an answer's HEADERS (with content type and length when there is a body) and its DATA.
    func write(
        _ streamID: HTTP2StreamID, headers: HPACKHeaders, body: [UInt8]?, contentType: String = "application/json",
        context: ChannelHandlerContext
    ) {
        requests.remove(streamID)
        var headers = headers
        if let body {
            headers.add(name: "content-type", value: contentType)
            headers.add(name: "content-length", value: String(body.count))
        }
        let head = HTTP2Frame.FramePayload.headers(.init(headers: headers, endStream: body == nil))
        context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: head)), promise: nil)
        if let body {
            let data = HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(ByteBuffer(bytes: body)), endStream: true))
            context.write(wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: data)), promise: nil)
        }
        pendingWrites = true
        unflushedAnswers += 1
        if unflushedAnswers >= Self.flushEvery { flushIfNeeded(context: context) }
    }

    /// An injected GOAWAY: streams from `streamID` on are left unprocessed, as APNs leaves them when it goes away.
    func goAway(before streamID: HTTP2StreamID, reason: APNSReason, context: ChannelHandlerContext) {
        requests.removeAll()
        let last = HTTP2StreamID(max(Int(Int32(streamID)) - 2, 0))
        let body = ByteBuffer(bytes: APNSErrorResponse(reason: reason).encoded())
        let goAway = HTTP2Frame.FramePayload.goAway(lastStreamID: last, errorCode: .noError, opaqueData: body)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: goAway)))
            .whenComplete { _ in loopBound.value.close(promise: nil) }
    }

    func flushIfNeeded(context: ChannelHandlerContext) {
        guard pendingWrites else { return }
        pendingWrites = false
        unflushedAnswers = 0
        context.flush()
    }
}
