extends KinematicBody

export(int, 0, 100) var health = 100 setget set_health

onready var tween = $Tween

func _ready():
	connect("visibility_changed", self, "set_health", [0])
	var file = File.new()
	file.open("user://save.json", File.READ)
	var data = parse_json(file.get_as_text())
	file.close()
	tween.interpolate_property(self, "translation", null, Vector3.UP, 1.0)
	tween.start()
	yield(tween, "tween_all_completed")

func set_health(value):
	health = clamp(value, 0, 100)
