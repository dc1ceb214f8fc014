extends Node2D
## Names resolve to locals in scope, parameters, members, inherited members, globals and classes.

enum Mode { IDLE, RUN }
const SPEED := 10.0
var target: Node2D

class Helper extends RefCounted:
	var size := 2
	func twice() -> int:
		return size * 2 + SPEED


func _ready() -> void:
	var body = Spatial.new()  # expect: undeclared-name
	var total := 0
	for i in range(3):
		total += i
	print(i)  # expect: undeclared-name
	if total > 2:
		var inner := total
	print(inner)  # expect: undeclared-name
	var double := func(x): return x * 2 + total
	print(double.call(Mode.RUN), position, PI, KEY_SPACE, Vector2.ZERO, Helper.new().twice())
	match total:
		[var first, ..]:
			print(first)
		_:
			print(SPEED)
	print(undefined_thing)  # expect: undeclared-name
	var shown := stepify(1.25, 0.5)  # expect: undeclared-name


class Legacy extends Reference:  # expect: undeclared-name
	var table: Dictionary[String, SpatialMaterial] = {}  # expect: undeclared-name
