class_name EnemyState
extends State

@export var chase_speed := 120.0
var target: Node2D


func enter(previous: State) -> void:
	super(previous)
	owner.animation.play(&"walk")


func exit() -> void:
	super.exit()
	target = null


func physics_update(delta: float) -> void:
	if target == null:
		transitioned.emit(self, &"idle")
		return
	var body := owner as CharacterBody2D
	body.velocity = body.global_position.direction_to(target.global_position) * chase_speed
	body.move_and_slide()


func _to_string() -> String:
	return "EnemyState(%s)" % name


static func make(speed: float) -> EnemyState:
	var s := EnemyState.new()
	s.chase_speed = speed
	return s


func can_see(point: Vector2) -> bool:
	return owner.global_position.distance_to(point) < 300.0


func random_wander() -> Vector2:
	return Vector2.RIGHT.rotated(randf() * TAU) * randf_range(20.0, 80.0)


func debug_draw(canvas: CanvasItem) -> void:
	canvas.queue_redraw()


func deferred_reset() -> void:
	call_deferred("exit")
	set_deferred("target", null)
