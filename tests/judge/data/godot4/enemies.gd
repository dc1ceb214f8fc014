extends Node2D

@export var enemy_scene: PackedScene
@export var spawn_interval := 1.5
@onready var spawn_path: PathFollow2D = $Path2D/PathFollow2D
@onready var timer: Timer = $SpawnTimer

var alive: Array[Node2D] = []


func _ready() -> void:
	timer.wait_time = spawn_interval
	timer.timeout.connect(_spawn)
	timer.start()


func _spawn() -> void:
	var enemy := enemy_scene.instantiate() as Node2D
	spawn_path.progress_ratio = randf()
	enemy.position = spawn_path.position
	enemy.rotation = spawn_path.rotation + PI / 2 + randf_range(-PI / 4, PI / 4)
	add_child(enemy)
	alive.append(enemy)
	enemy.tree_exited.connect(_on_enemy_gone.bind(enemy))


func _on_enemy_gone(enemy: Node2D) -> void:
	alive.erase(enemy)


func clear_all() -> void:
	for e in alive:
		e.queue_free()
	alive.clear()


func nearest_to(point: Vector2) -> Node2D:
	var best: Node2D = null
	var best_d := INF
	for e in alive:
		var d := e.global_position.distance_squared_to(point)
		if d < best_d:
			best_d = d
			best = e
	return best


func sort_by_distance(point: Vector2) -> void:
	alive.sort_custom(func(a: Node2D, b: Node2D) -> bool:
		return a.global_position.distance_to(point) < b.global_position.distance_to(point))


func count_in_radius(point: Vector2, radius: float) -> int:
	return alive.filter(func(e): return e.global_position.distance_to(point) <= radius).size()


func rotate_all(degrees: float) -> void:
	for e in alive:
		e.rotation_degrees += degrees


func stop_spawning() -> void:
	timer.stop()
	set_process(false)


func spawn_wave(count: int) -> void:
	for i in count:
		_spawn()
		await get_tree().process_frame
