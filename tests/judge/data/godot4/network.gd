extends Node

signal connected_ok
signal request_done(result: Dictionary)

const PORT := 7000
@onready var http: HTTPRequest = $HTTPRequest

var thread: Thread
var mutex := Mutex.new()
var results: Array = []


func host() -> void:
	var peer := ENetMultiplayerPeer.new()
	peer.create_server(PORT, 4)
	multiplayer.multiplayer_peer = peer
	multiplayer.peer_connected.connect(_on_peer_connected)


func join(address: String) -> void:
	var peer := ENetMultiplayerPeer.new()
	peer.create_client(address, PORT)
	multiplayer.multiplayer_peer = peer
	multiplayer.connected_to_server.connect(func(): connected_ok.emit())


func _on_peer_connected(id: int) -> void:
	sync_state.rpc_id(id, {"score": 0})


@rpc("authority", "call_remote", "reliable")
func sync_state(state: Dictionary) -> void:
	print("state: ", state)


func fetch(url: String) -> void:
	http.request_completed.connect(_on_request_completed, CONNECT_ONE_SHOT)
	var err := http.request(url)
	if err != OK:
		push_warning("request failed: %d" % err)


func _on_request_completed(result: int, code: int, _headers: PackedStringArray, body: PackedByteArray) -> void:
	var data = JSON.parse_string(body.get_string_from_utf8())
	request_done.emit({"result": result, "code": code, "data": data})


func start_worker(items: Array) -> void:
	thread = Thread.new()
	thread.start(_work.bind(items))


func _work(items: Array) -> void:
	for item in items:
		mutex.lock()
		results.append(item * 2)
		mutex.unlock()


func _exit_tree() -> void:
	if thread and thread.is_started():
		thread.wait_to_finish()
