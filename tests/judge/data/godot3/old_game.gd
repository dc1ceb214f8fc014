extends KinematicBody2D

export var speed = 200
onready var sprite = $Sprite
var velocity = Vector2()


func _physics_process(delta):
	velocity.y += 20
	velocity = move_and_slide(velocity, Vector2.UP)


func _ready():
	$Button.connect("pressed", self, "_on_pressed")
	yield(get_tree().create_timer(1.0), "timeout")


func save(data):
	var file = File.new()
	file.open("user://save.dat", File.WRITE)
	file.store_var(data)
	file.close()


func list_dir(path):
	var dir = Directory.new()
	dir.open(path)
	dir.list_dir_begin()


func fullscreen():
	OS.window_fullscreen = true


func fade():
	$Tween.interpolate_property(self, "modulate", Color(1, 1, 1, 0), Color(1, 1, 1, 1), 1.0)
	$Tween.start()


func start_thread():
	var thread = Thread.new()
	thread.start(self, "_worker", null)


func spawn(scene):
	var enemy = scene.instance()
	add_child(enemy)


func go_next():
	get_tree().change_scene("res://next.tscn")


func ticks():
	return OS.get_ticks_msec()


func arr():
	var names = PoolStringArray()
	return names


func random_offset():
	return rand_range(-1.0, 1.0)


func set_health(value):
	health = value
	.set_health(value)
