class_name Inventory
extends Resource

signal changed

@export var items: Array[ItemData] = []
@export var capacity := 20


func add(item: ItemData) -> bool:
	if items.size() >= capacity:
		return false
	items.append(item)
	changed.emit()
	return true


func remove(item: ItemData) -> void:
	items.erase(item)
	emit_changed()


func has(id: StringName) -> bool:
	return items.any(func(i: ItemData) -> bool: return i.id == id)


func total_weight() -> float:
	return items.reduce(func(acc: float, i: ItemData) -> float: return acc + i.weight, 0.0)


func names() -> PackedStringArray:
	return PackedStringArray(items.map(func(i): return i.display_name))


func sorted_by_value() -> Array[ItemData]:
	var copy := items.duplicate()
	copy.sort_custom(func(a, b): return a.value > b.value)
	return copy


func to_dict() -> Dictionary:
	return {"capacity": capacity, "items": items.map(func(i): return i.id)}


func is_empty() -> bool:
	return items.is_empty()


func describe() -> String:
	return "Inventory({0}/{1})".format([items.size(), capacity])
