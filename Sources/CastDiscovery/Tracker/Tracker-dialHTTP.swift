// DIAL's HTTP step (issue 15): after an M-SEARCH answer, a DIAL sender fetches the device
// description at `LOCATION`. The GET, the response's status and `Application-URL`, and the
// `friendlyName` and `modelName` of the description, reassembled from at most 16 KiB of the
// one response (the decoder keeps the segments that start it, and the rest of it from a Cast
// device's port 8008).

import WireFormat

/// A DIAL sender's fetch of a device description, and what came back.
public struct DIALDescription: Hashable, Sendable {
    /// Who fetched it.
    public var client: IPAddress
    /// `http://<server>:<port><target>`, as fetched.
    public var url: String
    public var request: TimedFrame
    /// The response's status code, and its (first) segment.
    public var status: Int?
    public var response: TimedFrame?
    /// The `Application-URL` header: where the DIAL REST service is.
    public var applicationURL: String?
    /// From the description's XML.
    public var friendlyName: String?
    public var modelName: String?
    public var manufacturer: String?
    /// Whether the whole body was read (`Content-Length` bytes, or the connection closed).
    public var complete = false
}

extension DiscoveryTracker {
    /// Descriptions followed per timeline, and the bytes kept of one response.
    static let maximumDescriptions = 64
    static let maximumDescriptionBytes = 16 * 1024

    /// One HTTP exchange being followed: the request, and the response's bytes so far.
    struct HTTPExchange {
        var description: DIALDescription
        var bytes: [UInt8] = []
        var nextSequence: UInt32?
        var bodyOffset: Int?
        var contentLength: Int?
    }

    /// A segment that starts an HTTP message or continues a response from port 8008.
    mutating func ingestHTTP(_ tcp: TCPSummary, packet: DiscoveryPacket, frame: FrameRef) {
        let payload = packet.tcpPayload
        let at = TimedFrame(time: packet.timestamp, frame: frame)
        if tcp.http, payload.starts(with: Array("GET ".utf8)) {
            guard let head = HTTPHead.parse(payload), let target = head.requestTarget else { return }
            let key = ConnectionKey(
                client: packet.source, clientPort: packet.sourcePort, server: packet.destination,
                serverPort: packet.destinationPort)
            let server =
                packet.destination.isIPv4 ? packet.destination.description : "[\(packet.destination)]"
            let url = "http://\(server):\(packet.destinationPort)\(target)"
            // Only a fetch of a DIAL device's LOCATION: a web page's GET is none of ours.
            guard dial.values.contains(where: { $0.info.location == url }) else { return }
            let exchange = HTTPExchange(description: DIALDescription(client: packet.source, url: url, request: at))
            if let i = httpSlot[key] {
                httpExchanges[i] = exchange  // the next request on a kept-alive connection
            } else if httpExchanges.count < Self.maximumDescriptions {
                httpSlot[key] = httpExchanges.count
                httpExchanges.append(exchange)
            }
            return
        }
        let key = ConnectionKey(
            client: packet.destination, clientPort: packet.destinationPort, server: packet.source,
            serverPort: packet.sourcePort)
        guard let i = httpSlot[key], !httpExchanges[i].description.complete else { return }
        var x = httpExchanges[i]
        if x.bytes.isEmpty {
            guard tcp.http else { return }  // the response must start with its status line
            x.description.response = at
        } else if let next = x.nextSequence, next != tcp.sequence {
            return  // a retransmission or a gap: only the response in order is read
        }
        x.bytes += payload.prefix(Self.maximumDescriptionBytes - x.bytes.count)
        x.nextSequence = tcp.sequence &+ UInt32(truncatingIfNeeded: tcp.payloadLength)
        if x.bodyOffset == nil, let head = HTTPHead.parse(x.bytes) {
            x.bodyOffset = head.bodyOffset
            x.contentLength = head.contentLength
            x.description.status = head.message.status
            x.description.applicationURL = head.message.header("Application-URL")
        }
        if let offset = x.bodyOffset {
            let body = Array(x.bytes[offset...])
            x.description.friendlyName = xmlElementText("friendlyName", in: body) ?? x.description.friendlyName
            x.description.modelName = xmlElementText("modelName", in: body) ?? x.description.modelName
            x.description.manufacturer = xmlElementText("manufacturer", in: body) ?? x.description.manufacturer
            if let length = x.contentLength, body.count >= length { x.description.complete = true }
            if x.bytes.count >= Self.maximumDescriptionBytes { x.description.complete = true }
        }
        httpExchanges[i] = x
    }

    /// The descriptions fetched, attached to the DIAL devices whose `LOCATION` they are (the
    /// latest fetch of each).
    func dialInfosWithDescriptions() -> [DIALInfo] {
        dialOrder.map { key in
            var info = dial[key]!.info
            if let location = info.location,
                let fetched = httpExchanges.last(where: {
                    $0.description.url == location && $0.description.status != nil
                })
            {
                info.deviceDescription = fetched.description
            }
            return info
        }
    }
}
