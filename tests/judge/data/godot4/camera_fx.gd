extends Camera2D

@export var shake_decay := 5.0
@export var max_offset := Vector2(16, 12)
var trauma := 0.0
var noise := FastNoiseLite.new()


func _ready() -> void:
	noise.seed = randi()
	make_current()


func add_trauma(amount: float) -> void:
	trauma = minf(trauma + amount, 1.0)


func _process(delta: float) -> void:
	trauma = maxf(trauma - shake_decay * delta, 0.0)
	var t := Time.get_ticks_msec() * 0.05
	offset = max_offset * trauma * Vector2(noise.get_noise_1d(t), noise.get_noise_1d(t + 100.0))


func follow(target: Node2D, weight: float) -> void:
	global_position = global_position.lerp(target.global_position, weight)


func zoom_to(level: float) -> void:
	var tween := create_tween().set_trans(Tween.TRANS_SINE).set_ease(Tween.EASE_OUT)
	tween.tween_property(self, "zoom", Vector2(level, level), 0.4)


func limits_from(rect: Rect2) -> void:
	limit_left = int(rect.position.x)
	limit_top = int(rect.position.y)
	limit_right = int(rect.end.x)
	limit_bottom = int(rect.end.y)


func screen_to_world(p: Vector2) -> Vector2:
	return get_canvas_transform().affine_inverse() * p


func flash(color: Color) -> void:
	var rect := ColorRect.new()
	rect.color = color
	get_tree().root.add_child(rect)
	await get_tree().create_timer(0.1).timeout
	rect.queue_free()
