extends Node
## Godot 3 grammar that Godot 4 dropped.

onready var label = $Label  # expect: godot3-syntax
var data = {"a": 1, b = 2}  # expect: godot3-syntax


func f(var x: String):  # expect: godot3-syntax
	yield(get_tree(), "idle_frame")  # expect: godot3-syntax


func g(var any, var flag := false):  # expect: godot3-syntax
	pass
